// attnlab kernels: raw pointers and sizes in, no allocation, no xtensor.
//
// Every kernel exists twice with the same signature:
//   name_ref(...)  plain scalar loops: the oracle for tests and the fallback;
//   name(...)      the xsimd version (SSE4.1 -> WebAssembly SIMD128 in the
//                  browser build, the widest ISA the compiler targets natively).
// Both are declared from the one kernel list, kernel_list.def, where each
// kernel's contract is written; the registry (registry.hpp) checks and times them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnlab::kernels {

// Quantization ranges for quantize_rows_i16 / gemm_i16 / gemm_i8 (see kernel_list.def):
// 11585 = floor(sqrt(2^31 / 16)), so 16 products of two such values sum exactly in int32.
constexpr int kQmaxWeight = 11585;
constexpr int kQmaxInput = 11585;

#define ATTNLAB_KERNEL(name, ret, params) \
  ret name params noexcept;               \
  ret name##_ref params noexcept;
#include "attnlab/kernels/kernel_list.def"

// ---------------------------------------------------------------- info
// Name of the SIMD instruction set the xsimd kernels were compiled for
// ("sse4.1", "avx512f", "wasm-simd128 (via sse4.1)", ...) and its float lanes.
const char* simd_arch_name() noexcept;
size_t simd_lanes() noexcept;
// GEMM register tile in use (rows x cols of C per micro-kernel call). Several
// tiles are compiled; the 16th large GEMM call times them (about 45 ms in wasm) and
// keeps the fastest (calls before it run the default tile), and the 200th large call
// times them again (in wasm the engine may still have been running baseline code the
// first time). Asking gemm_tile_m/n chooses at once. All tiles give bit-identical results.
size_t gemm_tile_m() noexcept;
size_t gemm_tile_n() noexcept;
size_t gemm_tile_count() noexcept;
void gemm_select_tile(int index);  // 0..count-1 forces a tile, -1 re-runs the autotune
void gemm_release_tile() noexcept;          // keep the current tile but let the autotune revisit it
int gemm_selected_tile() noexcept;
bool gemm_tile_chosen() noexcept;  // whether a tile is chosen yet (asking gemm_tile_m() would choose one)
// GFLOPS of the best GEMM micro-kernel alone on L1-resident packed panels
// (no packing, no memory traffic beyond L1): the ceiling GEMM is judged against.
double simd_peak_gflops(double min_ms);
// GFLOPS (2 x multiply-adds) of the 16-bit multiply-add instruction alone, back to back on
// registers: the ceiling of gemm_i8 / gemm_i16 (0 where there is no such instruction).
double i16_madd_peak_gflops(double min_ms);

}  // namespace attnlab::kernels
