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

// ---- a caller's tensor in the layers' layout
inline void check_array(const std::vector<size_t>& shape, size_t size, const char* what) {
  const size_t n = checked_product(what, shape);
  ATTNLAB_CHECK(n == size, what, ": shape ", shape_str(shape), " needs ", n, " values, got ", size);
}
inline void check_array(const LayerArray& a, const char* what) {
  check_array(a.shape, a.data.size(), what);
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
