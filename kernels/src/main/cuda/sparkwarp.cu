// The one translation unit nvcc compiles into sparkwarp.fatbin: each operator family lives in its own .cu file,
// included here so the jar carries a single module with stable extern "C" entry names (JCuda looks them up by name).
#include "aggregate.cu"
#include "batch.cu"
#include "expr.cu"
#include "grouping.cu"
#include "join.cu"
#include "merge_join.cu"
#include "parquet.cu"
#include "partition.cu"
#include "scan.cu"
#include "select.cu"
#include "sort.cu"
#include "strings.cu"
