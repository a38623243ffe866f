// Parameters: a value and its gradient, registered by name. The names are the
// safetensors keys of a model file ("encoder.fwd.weight_ih", ...).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/core/error.hpp"

namespace attnlab {

struct Param {
  xt::xarray<float> value;
  xt::xarray<float> grad;  // same shape as value; backward passes ACCUMULATE into it

  Param() = default;
  explicit Param(const std::vector<size_t>& shape)
      : value(xt::zeros<float>(shape)), grad(xt::zeros<float>(shape)) {}
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
