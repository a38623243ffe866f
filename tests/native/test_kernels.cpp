// Every SIMD kernel against its scalar twin, at sizes below, equal to, above
// and at multiples of its tile, in place where allowed (the cases live in
// src/attnlab/kernels/registry.cpp, one function per kernel of kernel_list.def).
// Plus the softmax edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "attnlab/core/error.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/registry.hpp"

using namespace attnlab::kernels;

namespace {
std::string shape_str(const Shape& s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
}
}  // namespace

class KernelVsRef : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelVsRef, MatchesReferenceAtTileEdges) {
  const KernelCase& c = kernel_case(GetParam());
  ASSERT_FALSE(c.test_shapes.empty());
  size_t checks = 0;
  check_case(c, {1u, 2u}, [&](const CheckRecord& r) {
    ++checks;
    EXPECT_TRUE(r.result.passed())
        << r.label << " shape " << shape_str(r.shape) << (r.in_place ? " in place" : "")
        << " seed " << r.seed << ": max |err| " << r.result.max_abs_err << ", worst err/tol "
        << r.result.worst_ratio << (r.result.all_finite ? "" : ", non-finite mismatch");
  });
  EXPECT_GE(checks, 2 * c.test_shapes.size());
}

TEST(Gemm, EveryTileGivesBitIdenticalResults) {
  const int chosen = gemm_selected_tile();
  std::vector<float> a(37 * 53), b(53 * 29), c0(37 * 29), c1(37 * 29);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.1f * static_cast<float>(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.07f * static_cast<float>(i));
  gemm_select_tile(0);
  gemm(false, true, 37, 29, 53, 1.f, a.data(), 53, b.data(), 53, 0.f, c0.data(), 29);
  for (int t = 1; t < static_cast<int>(gemm_tile_count()); ++t) {
    gemm_select_tile(t);
    gemm(false, true, 37, 29, 53, 1.f, a.data(), 53, b.data(), 53, 0.f, c1.data(), 29);
    EXPECT_EQ(c0, c1) << "tile " << t;
  }
  gemm_select_tile(chosen);
  gemm_release_tile();
  EXPECT_THROW(gemm_select_tile(99), attnlab::Error);
}

std::vector<std::string> all_names() {
  std::vector<std::string> n;
  for (const auto& c : kernel_cases()) n.push_back(c.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, KernelVsRef, ::testing::ValuesIn(all_names()),
                         [](const auto& p) { return p.param; });

TEST(KernelList, EveryKernelHasCasesAndEveryCaseNamesItsKernel) {
  const std::vector<std::string>& kernels = kernel_names();
  ASSERT_GE(kernels.size(), 28u);
  const std::set<std::string> listed(kernels.begin(), kernels.end());
  EXPECT_EQ(listed.size(), kernels.size()) << "a kernel is listed twice";
  std::set<std::string> covered, names;
  for (const KernelCase& c : kernel_cases()) {
    EXPECT_TRUE(listed.count(c.kernel)) << c.name << " checks " << c.kernel << ", not in the list";
    EXPECT_TRUE(c.name == c.kernel || c.name.rfind(c.kernel + "_", 0) == 0)
        << c.name << " does not start with its kernel's name " << c.kernel;
    EXPECT_TRUE(names.insert(c.name).second) << c.name << " twice";
    EXPECT_FALSE(c.test_shapes.empty()) << c.name;
    EXPECT_FALSE(c.bench_shapes.empty()) << c.name;
    EXPECT_TRUE(c.make) << c.name;
    EXPECT_EQ(c.every_gemm_tile, c.kernel == "gemm") << c.name;
    covered.insert(c.kernel);
  }
  for (const std::string& k : kernels) EXPECT_TRUE(covered.count(k)) << k << " has no case";
}

// names the JS package, the page and bench/*.mjs call kernels.bench() and the self-test with
TEST(KernelList, KeepsTheNamesCallersUse) {
  for (const char* n : {"gemm_nn", "gemm_nt", "gemm_tn", "gemm_tt", "gemv_n", "gemv_t", "dot",
                        "axpy", "scale", "add", "mul", "softmax_rows", "softmax_rows_mask",
                        "softmax_rows_fully_masked", "softmax_rows_pm1e4",
                        "softmax_rows_backward", "log_softmax_rows", "exp", "tanh", "sigmoid",
                        "relu", "gelu", "exp_backward", "tanh_backward", "sigmoid_backward",
                        "relu_backward", "gelu_backward", "layernorm", "layernorm_backward",
                        "sum", "max", "gemm_i16", "gemm_i8", "gemm_i8_sparse", "quantize_rows_i16",
                        "quantize_rows_i8"})
    EXPECT_NO_THROW(kernel_case(n)) << n;
  EXPECT_THROW(kernel_case("no_such_kernel"), attnlab::Error);
}

TEST(KernelList, ComparesWithTheGivenTolerance) {
  // a run's outputs compared with a zero tolerance fail where the twins differ, and
  // with the case's own tolerance pass: the tolerance lives in the case alone
  const KernelCase& c = kernel_case("exp");
  const auto out = c.make({1000, 0, 0}, 3)->outputs(false);
  EXPECT_TRUE(compare_outputs(out[0], out[1], c.tol).passed());
  EXPECT_FALSE(compare_outputs(out[0], out[1], Tolerance{0, 0}).passed());
  std::vector<float> r = {1.f, 2.f}, s = {1.f, 2.5f};
  EXPECT_NEAR(compare_outputs(r, s, {0.25, 0}).worst_ratio, 2.0, 1e-12);
  EXPECT_FALSE(compare_outputs(r, {1.f, std::nanf("")}, {1, 1}).passed());
}

TEST(Softmax, FullyMaskedRowGivesZerosNotNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t cols : {size_t{1}, size_t{3}, size_t{4}, size_t{17}}) {
    std::vector<float> x(2 * cols, 1.f), mask(2 * cols, 0.f), y(2 * cols, 7.f);
    for (size_t c = 0; c < cols; ++c) mask[c] = -inf;  // row 0 fully masked
    softmax_rows(2, cols, x.data(), cols, mask.data(), cols, y.data(), cols);
    for (size_t c = 0; c < cols; ++c) EXPECT_EQ(y[c], 0.f);
    float s = 0.f;
    for (size_t c = 0; c < cols; ++c) s += y[cols + c];
    EXPECT_NEAR(s, 1.f, 1e-6f);
  }
}

TEST(Softmax, HugeLogitsStayFinite) {
  std::vector<float> x = {1e4f, -1e4f, 1e4f, 0.f, -1e4f, 5e3f, 1e4f, 1e4f, -1e4f};
  std::vector<float> y(x.size());
  softmax_rows(1, x.size(), x.data(), x.size(), nullptr, 0, y.data(), x.size());
  float s = 0.f;
  for (float v : y) {
    EXPECT_TRUE(std::isfinite(v));
    s += v;
  }
  EXPECT_NEAR(s, 1.f, 1e-6f);
  EXPECT_NEAR(y[0], 0.25f, 1e-6f);
  std::vector<float> ls(x.size());
  log_softmax_rows(1, x.size(), x.data(), ls.data());
  for (float v : ls) EXPECT_FALSE(std::isnan(v));
}

TEST(Exp, EdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {-inf, -1000.f, 0.f, 1000.f, inf, std::nanf(""), 1.f, -1.f};
  std::vector<float> y(x.size());
  attnlab::kernels::exp(x.size(), x.data(), y.data());
  EXPECT_EQ(y[0], 0.f);
  EXPECT_EQ(y[1], 0.f);
  EXPECT_EQ(y[2], 1.f);
  EXPECT_EQ(y[3], inf);
  EXPECT_EQ(y[4], inf);
  EXPECT_TRUE(std::isnan(y[5]));
  EXPECT_NEAR(y[6], std::exp(1.f), 1e-6f);
  std::vector<float> t(x.size());
  attnlab::kernels::tanh(x.size(), x.data(), t.data());
  EXPECT_EQ(t[0], -1.f);
  EXPECT_EQ(t[4], 1.f);
  std::vector<float> s(x.size());
  attnlab::kernels::sigmoid(x.size(), x.data(), s.data());
  EXPECT_EQ(s[0], 0.f);
  EXPECT_EQ(s[4], 1.f);
}

TEST(Gemm, BetaZeroIgnoresNaNInC) {
  std::vector<float> a(6, 1.f), b(6, 1.f), c(4, std::nanf(""));
  gemm(false, false, 2, 2, 3, 1.f, a.data(), 3, b.data(), 2, 0.f, c.data(), 2);
  for (float v : c) EXPECT_EQ(v, 3.f);
}
