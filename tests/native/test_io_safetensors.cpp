// safetensors: F32/F16 round trips, half-float rounding against numpy's
// table, the torch-side file (written by scripts/fixtures_nn.py with struct +
// json) loads, every kind of damaged file gives a specific error, and files are
// written atomically.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/layers.hpp"
#include "nn_test_util.hpp"

using namespace attnlab;
using namespace attnlab::io;
using namespace attnlab::testutil;

namespace {
// file = 8-byte LE length + header + data
std::vector<uint8_t> raw_file(const std::string& header, const std::vector<uint8_t>& data,
                              uint64_t claimed_len = UINT64_MAX) {
  const uint64_t n = claimed_len == UINT64_MAX ? header.size() : claimed_len;
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}
std::vector<uint8_t> floats_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
// decode must fail and the message must contain every fragment
void expect_error(const std::vector<uint8_t>& bytes, std::initializer_list<const char*> parts) {
  try {
    decode(bytes);
    ADD_FAILURE() << "decoded a damaged file without error";
  } catch (const Error& e) {
    const std::string m = e.what();
    for (const char* p : parts) EXPECT_NE(m.find(p), std::string::npos) << "message: " << m;
  }
}

// a linear layer "fc." (5 -> 3) and an embedding "emb." (7 x 4), initialized from Rng(seed)
struct TwoLayers {
  explicit TwoLayers(uint64_t seed) : rng(seed), lin(5, 3, rng), emb(7, 4, rng, 0) {
    lin.collect(ps, "fc.");
    emb.collect(ps, "emb.");
  }
  Rng rng;
  nn::Linear lin;
  nn::Embedding emb;
  ParamList ps;
};
}  // namespace

TEST(IoSafetensors, RoundTripF32AndF16) {
  const TwoLayers saved(1);
  const ParamList& ps = saved.ps;
  ModelInfo info{"test-kind", R"({"in":5,"out":3})", {"<pad>", "a", "é"}, {{"note", "x"}}};
  for (DType dt : {DType::F32, DType::F16}) {
    const std::vector<uint8_t> bytes = save_model(info, ps, dt);
    const SafeTensors st = decode(bytes);
    const ModelInfo got = model_info(st);
    EXPECT_EQ(got.kind, "test-kind");
    EXPECT_EQ(got.config, info.config);
    EXPECT_EQ(got.vocab, info.vocab);
    EXPECT_EQ(got.extra.at("note"), "x");
    TwoLayers loaded(2);
    const ParamList& ps2 = loaded.ps;
    load_params(st, ps2);
    double worst = 0;
    for (size_t i = 0; i < ps.items().size(); ++i) {
      const auto& a = ps.items()[i].second->value;
      const auto& b = ps2.items()[i].second->value;
      for (size_t j = 0; j < a.size(); ++j) {
        const double e = std::fabs(a.data()[j] - b.data()[j]);
        worst = std::max(worst, e / std::max(1.0, std::fabs(static_cast<double>(a.data()[j]))));
      }
    }
    if (dt == DType::F32) {
      EXPECT_EQ(worst, 0.0);
    } else {
      EXPECT_LT(worst, 1e-3);  // half precision: 11 significant bits
      EXPECT_GT(worst, 0.0);
      // file size: header + 2 bytes per value
      EXPECT_LT(bytes.size(), save_model(info, ps, DType::F32).size());
    }
  }
}

TEST(IoSafetensors, HalfConversionMatchesNumpy) {
  const json fx = load_fixture("nn_safetensors_expected.json");
  for (const json& c : fx["half_cases"]) {
    const float f = c[0].get<float>();
    EXPECT_EQ(float_to_half(f), c[1].get<uint16_t>()) << "value " << f;
  }
  // exhaustive: every finite half survives half -> float -> half
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7c00u) == 0x7c00u) continue;
    EXPECT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h);
  }
  EXPECT_EQ(half_to_float(0x3c00), 1.f);
  EXPECT_EQ(half_to_float(0x0001), 5.9604644775390625e-8f);
}

TEST(IoSafetensors, TorchWrittenFileLoads) {
  const SafeTensors st = read_file(std::string(ATTNLAB_FIXTURES_DIR) + "/torch_small.safetensors");
  const json fx = load_fixture("nn_safetensors_expected.json");
  for (const char* name : {"linear.weight", "linear.bias", "emb.weight"}) {
    const TensorData& t = st.get(name);
    EXPECT_EQ(t.shape, fx[name]["shape"].get<std::vector<size_t>>());
    const std::vector<float> want = fx[name]["data"].get<std::vector<float>>();
    ASSERT_EQ(t.data.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.data[i], want[i]) << name << " " << i;
  }
  EXPECT_EQ(st.get("linear.bias").stored, DType::F16);
  const ModelInfo mi = model_info(st);
  EXPECT_EQ(mi.kind, "torch-test");
  EXPECT_EQ(mi.vocab.size(), 5u);
  // into real layers by name
  Rng rng(0);
  nn::Linear lin(4, 3, rng);
  ParamList ps;
  lin.collect(ps, "linear.");
  load_params(st, ps, "", /*strict=*/false);
  EXPECT_EQ(lin.weight.value(1, 2), st.get("linear.weight").data[6]);
}

TEST(IoSafetensors, DamagedFilesGiveClearErrors) {
  const std::vector<uint8_t> data = floats_bytes({1, 2, 3, 4, 5, 6});
  const std::string good =
      R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})";
  EXPECT_NO_THROW(decode(raw_file(good, data)));

  // truncated: shorter than the length field, header cut, data cut
  expect_error(std::vector<uint8_t>{1, 2, 3}, {"3 bytes", "truncated"});
  std::vector<uint8_t> cut = raw_file(good, data);
  cut.resize(8 + 20);
  expect_error(cut, {"truncated"});
  cut = raw_file(good, data);
  cut.resize(cut.size() - 4);
  expect_error(cut, {"tensor 'b'", "outside the data region", "truncated"});
  // oversized header length
  expect_error(raw_file(good, data, 1ull << 40), {"exceeds the limit"});
  // overlapping offsets
  expect_error(
      raw_file(R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
               data),
      {"'a'", "'b'", "overlap"});
  // a gap and trailing bytes
  expect_error(raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})",
                        data),
               {"gap of 8 bytes", "'b'"});
  expect_error(raw_file(R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", data),
               {"24 bytes", "cover 16", "trailing"});
  // wrong / unsupported dtype, shape not matching bytes
  expect_error(
      raw_file(R"({"a":{"dtype":"I64","shape":[3],"data_offsets":[0,24]}})", data),
      {"tensor 'a'", "dtype 'I64'", "expected F32 or F16"});
  expect_error(
      raw_file(R"({"a":{"dtype":"F32","shape":[5],"data_offsets":[0,24]}})", data),
      {"tensor 'a'", "shape (5)", "needs 20 bytes", "hold 24"});
  // NaN and inf weights
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[6],"data_offsets":[0,24]}})",
                        floats_bytes({1, 2, std::nanf(""), 4, 5, 6})),
               {"tensor 'w'", "nan", "flat index 2", "finite"});
  expect_error(raw_file(R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})",
                        {0x00, 0x3c, 0x00, 0x7c}),
               {"tensor 'w'", "inf", "flat index 1"});
  // not JSON / not an object / bad metadata
  expect_error(raw_file("{not json", {}), {"not valid JSON"});
  expect_error(raw_file("[1,2]", {}), {"JSON object"});
  expect_error(raw_file(R"({"__metadata__":{"kind":3}})", {}), {"__metadata__", "'kind'", "string"});
  expect_error(raw_file(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", {}),
               {"tensor 'a'", "shape entries"});
}

TEST(IoSafetensors, ShapeMismatchAndMissingTensors) {
  Rng rng(3);
  nn::Linear big(5, 3, rng), small(4, 3, rng);
  ParamList pb, psm;
  big.collect(pb, "fc.");
  small.collect(psm, "fc.");
  const SafeTensors st = decode(encode(param_views(psm), {}));
  try {
    load_params(st, pb);
    FAIL();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'fc.weight' has shape (3,4) but the model expects (3,5)"), std::string::npos)
        << m;
  }
  ParamList other;
  nn::Linear o(4, 3, rng);
  o.collect(other, "out.");
  try {
    load_params(st, other);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing tensor 'out.weight'"), std::string::npos);
  }
  // strict: an unexpected extra tensor is an error
  ParamList only_w;
  only_w.add("fc.weight", small.weight);
  EXPECT_THROW(load_params(st, only_w), Error);
  EXPECT_NO_THROW(load_params(st, only_w, "", false));
  // model_info needs kind and config
  EXPECT_THROW(model_info(st), Error);
  // a missing file says so
  try {
    read_file("/nonexistent/model.safetensors");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

// write_bytes / write_text replace a file atomically: a temporary file beside it is renamed over
// it, nothing is left behind, and a failed write names the path and keeps the old content.
TEST(IoSafetensors, AtomicWrites) {
  const std::string dir = "/tmp/attnlab_atomic_" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()), 0);
  const std::string path = dir + "/out.bin";
  auto read = [](const std::string& p) {
    const std::vector<uint8_t> b = io::read_bytes(p);
    return std::string(b.begin(), b.end());
  };
  auto entries = [&]() {
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
      closedir(d);
    }
    return names;
  };
  io::write_text(path, "first");
  EXPECT_EQ(read(path), "first");
  io::write_bytes(path, {'s', 'e', 'c', 'o', 'n', 'd', '!'});
  EXPECT_EQ(read(path), "second!");
  io::write_text(path, "");
  EXPECT_EQ(read(path), "");
  io::write_text(path, "kept");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.bin"});  // no temporary file left
  // a directory in the way: the rename fails, the error names the path, nothing is left behind
  ASSERT_EQ(std::system(("mkdir -p " + dir + "/sub/inner").c_str()), 0);
  try {
    io::write_text(dir + "/sub", "x");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/sub'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries().size(), 2u);  // out.bin and sub
  EXPECT_EQ(read(path), "kept");
  // a missing directory
  try {
    io::write_text(dir + "/nope/out.bin", "x");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/nope/out.bin"), std::string::npos) << e.what();
  }
  (void)std::system(("rm -rf " + dir).c_str());
}

// Special files are rejected before opening (a FIFO would block on open, a
// directory or /dev/zero has no meaningful size), each with a clear message.
TEST(IO, ReadBytesRejectsSpecialFilesWithoutBlocking) {
  auto message = [](const std::string& path) {
    try {
      read_bytes(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("/tmp").find("is a directory"), std::string::npos) << message("/tmp");
  EXPECT_NE(message("/dev/zero").find("not a regular file"), std::string::npos);
  char dir[] = "/tmp/attnlab-fifo-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string fifo = std::string(dir) + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message(fifo).find("not a regular file"), std::string::npos) << message(fifo);
  std::remove(fifo.c_str());
  rmdir(dir);
}

// A model file whose config asks for more parameters than the file stores is
// rejected by the ParamBudget before the big parameter is allocated.
TEST(IO, ParamBudgetRejectsConfigsLargerThanTheFile) {
  {
    const ParamBudget budget(100);
    EXPECT_NO_THROW(Param({10, 5}));
    EXPECT_NO_THROW(Param({50}));
    try {
      Param p({4096, 4096});
      FAIL();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("more parameter values than the file stores"),
                std::string::npos);
    }
  }
  EXPECT_NO_THROW(Param({64, 64}));  // no budget outside the scope
  // products are checked even without a budget (no wrap on 32-bit size_t)
  EXPECT_THROW(Param({65536, 65536}), Error);
  EXPECT_THROW(checked_product("x", {uint64_t{1} << 32, 2}), Error);
  EXPECT_EQ(checked_product("x", {3, 5, 7}), size_t{105});
  EXPECT_THROW(checked_whole("n", 1.5, 0, 10), Error);
  EXPECT_THROW(checked_whole("n", std::nan(""), 0, 10), Error);
  EXPECT_THROW(checked_whole("n", -1, 0, 10), Error);
  EXPECT_EQ(checked_whole("n", 10, 0, 10), uint64_t{10});
}
