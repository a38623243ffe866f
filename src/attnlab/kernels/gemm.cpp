// GEMM: C = alpha * op(A) * op(B) + beta * C, Goto-style.
//
// op(B) is packed into KC x NR column panels and op(A) into MR x KC row panels
// (both zero-padded at the edges), then an MR x NR register-blocked
// micro-kernel (MR * NR/W vector accumulators) runs over the packed panels.
// The packing buffers are static (thread_local), so the kernel never
// allocates. A one-row GEMM (the decoder's case) goes to GEMV without packing.
#include <algorithm>
#include <cstring>

#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/simd_math.hpp"

namespace attnlab::kernels {

using simd::fbatch;
using simd::W;

namespace {

// Register tile per target. V8 has 16 xmm registers: 4x8 keeps 8 accumulators
// + 2 B vectors + 1 broadcast; AVX2/AVX-512 have room for 6 x (2 vectors).
#if defined(ATTNLAB_GEMM_MR) && defined(ATTNLAB_GEMM_NV)
constexpr size_t MR = ATTNLAB_GEMM_MR;
constexpr size_t NV = ATTNLAB_GEMM_NV;
#elif defined(__EMSCRIPTEN__)
constexpr size_t MR = 4;
constexpr size_t NV = 2;
#elif defined(__AVX__)
constexpr size_t MR = 6;
constexpr size_t NV = 2;
#else
constexpr size_t MR = 4;
constexpr size_t NV = 2;
#endif
constexpr size_t NR = NV * W;
constexpr size_t KC = 256;
constexpr size_t MC = MR * 24;
constexpr size_t NC = 512;
static_assert(NC % NR == 0, "NC must be a multiple of NR");

alignas(64) thread_local float g_apack[MC * KC];
alignas(64) thread_local float g_bpack[KC * NC];

// Pack op(A)[i0:i0+mc, k0:k0+kc] into panels of MR rows: dst[(p*kc + k)*MR + i].
void pack_a(bool transA, const float* A, size_t lda, size_t i0, size_t mc, size_t k0,
            size_t kc, float* dst) {
  for (size_t p = 0; p < mc; p += MR) {
    const size_t mr = std::min(MR, mc - p);
    float* d = dst + p * kc;
    if (!transA) {
      for (size_t i = 0; i < mr; ++i) {
        const float* src = A + (i0 + p + i) * lda + k0;
        for (size_t k = 0; k < kc; ++k) d[k * MR + i] = src[k];
      }
    } else {
      for (size_t k = 0; k < kc; ++k) {
        const float* src = A + (k0 + k) * lda + i0 + p;
        for (size_t i = 0; i < mr; ++i) d[k * MR + i] = src[i];
      }
    }
    for (size_t i = mr; i < MR; ++i)
      for (size_t k = 0; k < kc; ++k) d[k * MR + i] = 0.f;
  }
}

// Pack op(B)[k0:k0+kc, j0:j0+nc] into panels of NR columns: dst[(q*kc + k)*NR + j].
void pack_b(bool transB, const float* B, size_t ldb, size_t k0, size_t kc, size_t j0,
            size_t nc, float* dst) {
  for (size_t q = 0; q < nc; q += NR) {
    const size_t nr = std::min(NR, nc - q);
    float* d = dst + q * kc;
    if (!transB) {
      for (size_t k = 0; k < kc; ++k) {
        const float* src = B + (k0 + k) * ldb + j0 + q;
        float* dk = d + k * NR;
        if (nr == NR) {
          for (size_t v = 0; v < NV; ++v)
            fbatch::load_unaligned(src + v * W).store_aligned(dk + v * W);
        } else {
          size_t j = 0;
          for (; j < nr; ++j) dk[j] = src[j];
          for (; j < NR; ++j) dk[j] = 0.f;
        }
      }
    } else {
      for (size_t j = 0; j < nr; ++j) {
        const float* src = B + (j0 + q + j) * ldb + k0;
        for (size_t k = 0; k < kc; ++k) d[k * NR + j] = src[k];
      }
      for (size_t j = nr; j < NR; ++j)
        for (size_t k = 0; k < kc; ++k) d[k * NR + j] = 0.f;
    }
  }
}

// C[0:mr, 0:nr] = alpha * Ap * Bp + beta * C  (beta == 0: C not read)
inline void micro_kernel(size_t kc, const float* __restrict Ap, const float* __restrict Bp,
                         float* C, size_t ldc, float alpha, float beta, size_t mr,
                         size_t nr) {
  fbatch acc[MR][NV];
  for (size_t i = 0; i < MR; ++i)
    for (size_t v = 0; v < NV; ++v) acc[i][v] = fbatch(0.f);
  for (size_t k = 0; k < kc; ++k) {
    fbatch b[NV];
    for (size_t v = 0; v < NV; ++v) b[v] = fbatch::load_aligned(Bp + k * NR + v * W);
    for (size_t i = 0; i < MR; ++i) {
      const fbatch a(Ap[k * MR + i]);
      for (size_t v = 0; v < NV; ++v) acc[i][v] += a * b[v];
    }
  }
  const fbatch va(alpha), vb(beta);
  if (mr == MR && nr == NR) {
    for (size_t i = 0; i < MR; ++i) {
      float* c = C + i * ldc;
      for (size_t v = 0; v < NV; ++v) {
        fbatch r = va * acc[i][v];
        if (beta != 0.f) r += vb * fbatch::load_unaligned(c + v * W);
        r.store_unaligned(c + v * W);
      }
    }
    return;
  }
  alignas(64) float tmp[MR * NR];
  for (size_t i = 0; i < MR; ++i)
    for (size_t v = 0; v < NV; ++v) acc[i][v].store_aligned(tmp + i * NR + v * W);
  for (size_t i = 0; i < mr; ++i)
    for (size_t j = 0; j < nr; ++j) {
      float& c = C[i * ldc + j];
      c = alpha * tmp[i * NR + j] + (beta == 0.f ? 0.f : beta * c);
    }
}

}  // namespace

void gemm(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha,
          const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
          size_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0 || alpha == 0.f) {
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j)
        C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
    return;
  }
  if (M == 1) {
    // row vector a = op(A)[0, :] (strided if transA, so copy it in chunks)
    if (!transA) {
      // C(1,N) = a * op(B): op(B) = B (K,N) -> B^T a; op(B) = B^T, B (N,K) -> B a
      gemv(!transB, transB ? N : K, transB ? K : N, alpha, B, ldb, A, beta, C);
      return;
    }
    if (lda == 1) {
      gemv(!transB, transB ? N : K, transB ? K : N, alpha, B, ldb, A, beta, C);
      return;
    }
  }
  for (size_t jc = 0; jc < N; jc += NC) {
    const size_t nc = std::min(NC, N - jc);
    for (size_t pc = 0; pc < K; pc += KC) {
      const size_t kc = std::min(KC, K - pc);
      const float bt = pc == 0 ? beta : 1.f;
      pack_b(transB, B, ldb, pc, kc, jc, nc, g_bpack);
      for (size_t ic = 0; ic < M; ic += MC) {
        const size_t mc = std::min(MC, M - ic);
        pack_a(transA, A, lda, ic, mc, pc, kc, g_apack);
        for (size_t jr = 0; jr < nc; jr += NR) {
          const size_t nr = std::min(NR, nc - jr);
          for (size_t ir = 0; ir < mc; ir += MR) {
            const size_t mr = std::min(MR, mc - ir);
            micro_kernel(kc, g_apack + ir * kc, g_bpack + jr * kc,
                         C + (ic + ir) * ldc + jc + jr, ldc, alpha, bt, mr, nr);
          }
        }
      }
    }
  }
}

size_t gemm_tile_m() { return MR; }
size_t gemm_tile_n() { return NR; }

}  // namespace attnlab::kernels
