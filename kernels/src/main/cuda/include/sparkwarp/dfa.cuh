// A byte-level DFA (io.sparkwarp.kernels.strings.DfaMatcher) run by one lane over one string, a piece per call:
// bytes map to classes, classes index the current state's row of an int16 transition table, and the string is
// decided at its end or as soon as it enters a sink state (Sitaridi ch. 6: early accept or reject).
#pragma once
#include <cstdint>

#include "sparkwarp/string_pieces.cuh"

namespace sparkwarp {

// Header words of a DFA program, laid out by io.sparkwarp.kernels.cuda.MatcherProgram (keep both in step), then the
// 256-byte class map and the table at the byte offsets the header gives.
namespace dfa_abi {
constexpr int CLASS_COUNT = 0;
constexpr int STATE_COUNT = 1;
constexpr int START = 2;    // the start state's entry
constexpr int CLASSES = 3;  // uint8[256]: the class of each byte value
constexpr int TABLE = 4;    // uint16[states x classes]: the entry of next[state][class]
constexpr int HEADER_WORDS = 8;
}  // namespace dfa_abi

// A table entry names the state it leads to by its row's offset in the table (state x classes < 2^14, which
// DfaMatcher.MAX_TABLE_ENTRIES guarantees), so a step is one add and one load, and carries that state's flags, so
// testing for a sink or the answer needs no second lookup.
constexpr uint32_t DFA_ROW = 0x3fffu;
constexpr uint32_t DFA_ACCEPTING = 0x4000u;
constexpr uint32_t DFA_SINK = 0x8000u;

// A DFA program in (shared) memory.
struct DfaProgram {
  const uint8_t* classes;
  const uint16_t* table;
  uint32_t start;

  __device__ __forceinline__ explicit DfaProgram(const uint8_t* program) {
    const int32_t* h = reinterpret_cast<const int32_t*>(program);
    classes = program + h[dfa_abi::CLASSES];
    table = reinterpret_cast<const uint16_t*>(program + h[dfa_abi::TABLE]);
    start = static_cast<uint32_t>(h[dfa_abi::START]);
  }
};

struct DfaLane {
  int32_t n;       // the string's length
  int32_t pos;     // the next byte, a multiple of 8: the automaton reads every byte
  uint32_t entry;  // the current state's entry

  // Starts on a string of `length` bytes. False when that decides it (empty, or a sink start state).
  __device__ __forceinline__ bool open(const DfaProgram& p, int32_t length) {
    n = length;
    pos = 0;
    entry = p.start;
    return n > 0 && !(entry & DFA_SINK);
  }

  __device__ __forceinline__ int32_t next_piece() const { return pos >> 3; }

  // Runs the bytes of piece next_piece(). True when the string is decided.
  __device__ __forceinline__ bool consume(const DfaProgram& p, uint64_t piece) {
    const int bytes = n - pos < 8 ? n - pos : 8;
#pragma unroll
    for (int b = 0; b < 8; b++) {
      if (b == bytes) break;
      entry = p.table[(entry & DFA_ROW) + p.classes[piece & 0xff]];
      if (entry & DFA_SINK) return true;
      piece >>= 8;
    }
    pos += bytes;
    return pos == n;
  }

  __device__ __forceinline__ bool matched() const { return (entry & DFA_ACCEPTING) != 0; }
};

}  // namespace sparkwarp
