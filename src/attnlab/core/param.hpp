// Parameters: a value and its gradient, registered by name. The names are the
// safetensors keys of a model file ("encoder.fwd.weight_ih", ...).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/core/checked.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/core/thread_local.hpp"

namespace attnlab {

namespace detail {
inline uint64_t*& param_budget() {
  static ATTNLAB_THREAD_LOCAL uint64_t* left = nullptr;
  return left;
}
}  // namespace detail

// While a ParamBudget is alive, parameters constructed on this thread may hold
// at most `elements` values in all. Model loaders open one with the number of
// values the file stores, so a config that asks for more parameters than the
// file holds (a tiny file claiming a huge model) fails before allocating.
class ParamBudget {
 public:
  explicit ParamBudget(uint64_t elements) : left_(elements), prev_(detail::param_budget()) {
    detail::param_budget() = &left_;
  }
  ~ParamBudget() { detail::param_budget() = prev_; }
  ParamBudget(const ParamBudget&) = delete;
  ParamBudget& operator=(const ParamBudget&) = delete;

 private:
  uint64_t left_;
  uint64_t* prev_;
};

namespace detail {
inline const std::vector<size_t>& reserve_param(const std::vector<size_t>& shape) {
  const size_t n = checked_product("parameter shape", shape, kMaxModelFloats);
  if (uint64_t* left = param_budget()) {
    ATTNLAB_CHECK(n <= *left, "model file: its config asks for more parameter values than the "
                  "file stores (the config does not match the weights; the file may be damaged)");
    *left -= n;
  }
  return shape;
}
}  // namespace detail

struct Param {
  xt::xarray<float> value;
  xt::xarray<float> grad;  // same shape as value; backward passes ACCUMULATE into it

  Param() = default;
  // Sizes are checked (product <= kMaxModelFloats, and within an open ParamBudget).
  explicit Param(const std::vector<size_t>& shape)
      : value(xt::zeros<float>(detail::reserve_param(shape))), grad(xt::zeros<float>(shape)) {}
  void zero_grad() { grad.fill(0.f); }
  size_t size() const { return value.size(); }
  float* data() { return value.data(); }
  float* gdata() { return grad.data(); }
};

// An ordered list of (name, parameter) pairs. Layers add theirs under a prefix:
//   void collect(ParamList& out, const std::string& prefix) {
//     out.add(prefix + "weight", weight); out.add(prefix + "bias", bias); }
class ParamList {
 public:
  void add(const std::string& name, Param& p) {
    for (auto& it : items_)
      ATTNLAB_CHECK(it.first != name, "parameter name '", name, "' registered twice");
    items_.emplace_back(name, &p);
  }
  const std::vector<std::pair<std::string, Param*>>& items() const { return items_; }
  Param& get(const std::string& name) const {
    for (auto& it : items_)
      if (it.first == name) return *it.second;
    throw Error("no parameter named '" + name + "'");
  }
  size_t count() const {
    size_t n = 0;
    for (auto& it : items_) n += it.second->size();
    return n;
  }
  void zero_grad() {
    for (auto& it : items_) it.second->zero_grad();
  }

 private:
  std::vector<std::pair<std::string, Param*>> items_;
};

}  // namespace attnlab
