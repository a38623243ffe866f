// Small helpers shared by the nn layers: the Tensor alias, shape checks,
// allocation without initialisation. Storage is xtensor; math is in kernels.
#pragma once
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/core/error.hpp"

namespace attnlab::nn {

using Tensor = xt::xarray<float>;
using Shape = std::vector<size_t>;

inline std::string shape_str(const Tensor& t) {
  std::string s = "(";
  for (size_t i = 0; i < t.dimension(); ++i) s += (i ? "," : "") + std::to_string(t.shape()[i]);
  return s + ")";
}
inline std::string shape_str(const Shape& sh) {
  std::string s = "(";
  for (size_t i = 0; i < sh.size(); ++i) s += (i ? "," : "") + std::to_string(sh[i]);
  return s + ")";
}

// A default-constructed xarray is a 0-d scalar with size() == 1: "no tensor"
// is spelled Tensor() and tested with is_empty().
inline bool is_empty(const Tensor& t) { return t.dimension() == 0 || t.size() == 0; }

// Uninitialised tensor of a shape (every caller overwrites it fully).
inline Tensor empty(const Shape& shape) {
  Tensor t;
  t.resize(shape);
  return t;
}
inline Tensor zeros(const Shape& shape) {
  Tensor t;
  t.resize(shape);
  t.fill(0.f);
  return t;
}

// Throws unless t has exactly `rank` dimensions; `what` names the argument.
inline void check_rank(const Tensor& t, size_t rank, const char* what, const char* layout) {
  ATTNLAB_CHECK(t.dimension() == rank, what, ": expected a rank-", rank, " tensor ", layout,
                ", got shape ", shape_str(t));
}
inline void check_dim(const Tensor& t, size_t axis, size_t want, const char* what) {
  ATTNLAB_CHECK(t.shape()[axis] == want, what, ": expected size ", want, " on axis ", axis,
                ", got shape ", shape_str(t));
}
inline void check_finite(const Tensor& t, const char* what) {
  const float* p = t.data();
  for (size_t i = 0; i < t.size(); ++i)
    ATTNLAB_CHECK(std::isfinite(p[i]), what, ": expected finite values, got ", p[i],
                  " at flat index ", i);
}

}  // namespace attnlab::nn
