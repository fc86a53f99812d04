// The expression program's binary interface, shared by the host (io.sparkwarp.kernels.expr) and expr.cu: opcodes,
// value kinds, modes and error codes are the ordinals of the Java enums (ExprProgramAbiTest checks every constant),
// and the structs below are the layout CudaExpressionPrimitives writes into the launch block.
#pragma once
#include <cstdint>

namespace sparkwarp {
namespace expr {

// io.sparkwarp.kernels.expr.Opcode; the instruction set is documented there.
constexpr int OP_COLUMN = 0;
constexpr int OP_LITERAL = 1;
constexpr int OP_NULL = 2;
constexpr int OP_BYTES_LITERAL = 3;
constexpr int OP_COMPARE = 4;
constexpr int OP_NOT = 5;
constexpr int OP_AND = 6;
constexpr int OP_OR = 7;
constexpr int OP_IS_NULL = 8;
constexpr int OP_IS_NOT_NULL = 9;
constexpr int OP_IN = 10;
constexpr int OP_ADD = 11;
constexpr int OP_SUBTRACT = 12;
constexpr int OP_MULTIPLY = 13;
constexpr int OP_DIVIDE = 14;
constexpr int OP_REMAINDER = 15;
constexpr int OP_INTEGRAL_DIVIDE = 16;
constexpr int OP_NEGATE = 17;
constexpr int OP_CAST = 18;
constexpr int OP_JUMP = 19;
constexpr int OP_JUMP_IF_NOT_TRUE = 20;
constexpr int OP_JUMP_IF_NULL = 21;
constexpr int OP_JUMP_IF_FALSE = 22;
constexpr int OP_JUMP_IF_TRUE = 23;
constexpr int OP_COALESCE_JUMP = 24;
constexpr int OP_DIVISOR_CHECK = 25;
constexpr int OP_OUTPUT = 26;
constexpr int OP_DATE_FIELD = 27;

// io.sparkwarp.kernels.batch.DeviceType.Kind
constexpr int KIND_BOOLEAN = 0;
constexpr int KIND_BYTE = 1;
constexpr int KIND_SHORT = 2;
constexpr int KIND_INT = 3;
constexpr int KIND_LONG = 4;
constexpr int KIND_FLOAT = 5;
constexpr int KIND_DOUBLE = 6;
constexpr int KIND_DATE = 7;
constexpr int KIND_TIMESTAMP = 8;
constexpr int KIND_DECIMAL = 9;
constexpr int KIND_STRING = 10;
constexpr int KIND_BINARY = 11;
constexpr int KIND_DECIMAL128 = 12;

// io.sparkwarp.kernels.expr.Comparison
constexpr int CMP_EQ = 0;
constexpr int CMP_LT = 1;
constexpr int CMP_LE = 2;
constexpr int CMP_GT = 3;
constexpr int CMP_GE = 4;
constexpr int CMP_EQ_NULL_SAFE = 5;

// io.sparkwarp.kernels.expr.DateField
constexpr int FIELD_YEAR = 0;
constexpr int FIELD_QUARTER = 1;
constexpr int FIELD_MONTH = 2;
constexpr int FIELD_DAY_OF_MONTH = 3;

// io.sparkwarp.kernels.expr.EvalMode
constexpr int MODE_LEGACY = 0;
constexpr int MODE_ANSI = 1;
constexpr int MODE_TRY = 2;

// io.sparkwarp.kernels.expr.ExpressionErrorException.Kind, ordinal + 1
constexpr int ERR_NONE = 0;
constexpr int ERR_ARITHMETIC_OVERFLOW = 1;
constexpr int ERR_DIVIDE_BY_ZERO = 2;
constexpr int ERR_DECIMAL_OVERFLOW = 3;
constexpr int ERR_CAST_OVERFLOW = 4;
constexpr int ERR_DATETIME_OVERFLOW = 5;

// io.sparkwarp.kernels.expr.ExprProgram.MAX_STACK_DEPTH
constexpr int MAX_STACK_DEPTH = 16;

// One input column in Arrow layout; offsets only for strings and binaries.
struct InputColumn {
  const uint32_t* validity;
  const int32_t* offsets;
  const uint8_t* data;
};

// One computed output column: validity bitmap and values (bit-packed for booleans). Null for pass-through outputs.
struct OutputColumn {
  uint32_t* validity;
  uint8_t* data;
};

// The first failing row: `row` is INT64_MAX until a row fails. The evaluating launch only lowers `row` (atomicMin);
// a second launch over that row alone fills in what failed, so the report is the same on every run.
struct ErrorRecord {
  unsigned long long row;
  int32_t kind;
  int32_t site;
  int64_t left;
  int64_t right;
  int64_t left_hi;  // the high words of 128-bit decimal operands
  int64_t right_hi;
};

}  // namespace expr
}  // namespace sparkwarp
