// Helpers shared by the layer files (layer_file.cpp) and the functional attention calls
// (layer_functional.cpp): a caller's array checked against its shape, shapes as text.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "attnlab/core/checked.hpp"
#include "attnlab/models/layer_file.hpp"

namespace attnlab::models::layer_detail {

inline std::string shape_str(const std::vector<size_t>& s) {
  std::string o = "(";
  for (size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
  return o + ")";
}

// "<a><sep><b>" into buf, cut to fit (no allocation: names built on every call for the
// error messages a check may give)
template <size_t N>
const char* join_name(char (&buf)[N], const char* a, const char* sep, const char* b) {
  size_t i = 0;
  for (const char* part : {a, sep, b})
    for (const char* c = part; *c && i + 1 < N; ++c) buf[i++] = *c;
  buf[i] = '\0';
  return buf;
}

// ---- a caller's tensor in the layers' layout
inline void check_array(const std::vector<size_t>& shape, size_t size, const char* what) {
  const size_t n = checked_product(what, shape);
  ATTNLAB_CHECK(n == size, what, ": shape ", shape_str(shape), " needs ", n, " values, got ", size);
}
inline void check_array(const LayerArray& a, const char* what) {
  check_array(a.shape, a.count(), what);
}

inline LayerArray plain(std::vector<size_t> shape, const float* p) {
  LayerArray o;
  o.shape = std::move(shape);
  size_t n = 1;
  for (size_t x : o.shape) n *= x;
  o.data.assign(p, p + n);
  return o;
}

}  // namespace attnlab::models::layer_detail
