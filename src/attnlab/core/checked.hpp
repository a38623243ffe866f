// Checked size arithmetic for every size that comes from a user or a file.
//
// In wasm `size_t` is 32 bits: a product such as vocab * emb from a model
// file's config can wrap to a small number, the allocation then succeeds and
// later writes go out of bounds. Every such product goes through these
// helpers, which compute in 64 bits, reject anything above a documented cap
// and name the sizes in the error.
//
// Caps (the same on every platform, so a file that loads natively loads in wasm):
//   kMaxElements   = 2^28 floats per tensor or buffer (1 GiB of float32)
//   kMaxModelFloats = 2^26 parameters per model (256 MiB of float32)
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/core/error.hpp"

namespace attnlab {

inline constexpr uint64_t kMaxElements = uint64_t{1} << 28;
inline constexpr uint64_t kMaxModelFloats = uint64_t{1} << 26;

namespace detail {
template <class Sizes>
std::string sizes_str(const Sizes& xs) {
  std::string s;
  for (uint64_t x : xs) s += (s.empty() ? "" : " x ") + std::to_string(x);
  return s;
}
template <class Sizes>
size_t checked_product_of(const char* what, const Sizes& xs, uint64_t cap) {
  uint64_t p = 1;
  bool over = false;
  for (uint64_t x : xs) {
    if (x != 0 && p > cap / x) over = true;
    else p *= x;
  }
  if (!over && (p > cap || p > std::numeric_limits<size_t>::max())) over = true;
  ATTNLAB_CHECK(!over, what, ": ", sizes_str(xs), " is more than the limit of ", cap, " elements");
  return static_cast<size_t>(p);
}
}  // namespace detail

// a * b * ... as size_t, or an Error naming `what` and the sizes when the
// product exceeds `cap` (default kMaxElements) or the platform's size_t.
inline size_t checked_product(const char* what, std::initializer_list<uint64_t> xs,
                              uint64_t cap = kMaxElements) {
  return detail::checked_product_of(what, xs, cap);
}
inline size_t checked_product(const char* what, const std::vector<size_t>& xs,
                              uint64_t cap = kMaxElements) {
  return detail::checked_product_of(what, xs, cap);
}

// a + b with the same cap.
inline size_t checked_sum(const char* what, uint64_t a, uint64_t b, uint64_t cap = kMaxElements) {
  ATTNLAB_CHECK(a <= cap && b <= cap - a, what, ": ", a, " + ", b, " is more than the limit of ",
                cap, " elements");
  return static_cast<size_t>(a + b);
}

// A double from JS or JSON as a whole number in [lo, hi]; NaN, infinities,
// fractions and out-of-range values are rejected with `what` in the message.
inline uint64_t checked_whole(const char* what, double x, uint64_t lo, uint64_t hi) {
  ATTNLAB_CHECK(x == x && x >= static_cast<double>(lo) && x <= static_cast<double>(hi) &&
                    static_cast<double>(static_cast<uint64_t>(x)) == x,
                what, ": expected a whole number in [", lo, ", ", hi, "], got ", x);
  return static_cast<uint64_t>(x);
}

}  // namespace attnlab
