// The native contender of the benchmark suite (bench/suite.mjs runs it; 1 thread):
//   build/native/bench_suite CASES.json [--rounds N] [--batch-ms B] [--out DIR]
// CASES.json is the suite's list of cases; the inputs come from the suite's generator
// (an LCG seeded from the case id: the same numbers as in JS and Python). With --out
// each variant's output goes to DIR/native_<case>_<variant>.f32 for the suite to check
// against its float64 reference before it trusts the timings.
// Statistic (the suite's one statistic): per round, 5 batches of calls, each at least
// --batch-ms long; the round's value is the median batch's time per call (ms).
// Prints one JSON object. Not a Google Benchmark binary: its statistic would differ.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/timing.hpp"

using namespace attnlab;
using namespace attnlab::attention;
using json = nlohmann::json;

namespace {

uint32_t fnv1a(const std::string& s) {
  uint32_t h = 0x811C9DC5u;
  for (unsigned char ch : s) h = (h ^ ch) * 0x01000193u;
  return h;
}

// The suite's generator: s = s * 1664525 + 1013904223 (mod 2^32), x = (s / 2^32 - 0.5) * scale.
std::vector<float> lcg(size_t n, uint32_t seed, double scale) {
  std::vector<float> a(n);
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    a[i] = static_cast<float>((s / 4294967296.0 - 0.5) * scale);
  }
  return a;
}

volatile float g_sink;

double round_median(const std::function<void()>& f, double batch_ms) {
  std::vector<double> t;
  for (int b = 0; b < 5; ++b) {
    size_t n = 0;
    const double t0 = kernels::now_ms();
    double t1;
    do {
      f();
      ++n;
      t1 = kernels::now_ms();
    } while (t1 - t0 < batch_ms);
    t.push_back((t1 - t0) / static_cast<double>(n));
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

struct Variant {
  std::string name;
  std::function<void()> run;
  std::function<std::vector<float>()> output;
};

Tensor3 tensor3(const std::vector<float>& a, size_t d0, size_t d1, size_t d2) {
  Tensor3 t = Tensor3::from_shape({d0, d1, d2});
  std::copy(a.begin(), a.end(), t.data());
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_suite CASES.json [--rounds N] [--batch-ms B] [--out DIR]\n";
    return 2;
  }
  int rounds = 1;
  double batch_ms = 25;
  std::string out_dir;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds") rounds = std::stoi(argv[i + 1]);
    else if (a == "--batch-ms") batch_ms = std::stod(argv[i + 1]);
    else if (a == "--out") out_dir = argv[i + 1];
    else { std::cerr << "bench_suite: unknown flag " << a << "\n"; return 2; }
  }
  std::ifstream f(argv[1]);
  const json cases = json::parse(f);
  json res = {{"arch", kernels::simd_arch_name()}, {"cases", json::object()}};
  for (const auto& c : cases) {
    const std::string id = c["id"], op = c["op"];
    const uint32_t base = fnv1a(id);
    std::map<std::string, std::vector<float>> in;
    uint32_t idx = 0;
    for (const auto& inp : c["inputs"]) {
      size_t n = 1;
      for (const auto& d : inp[1]) n *= d.get<size_t>();
      in[inp[0].get<std::string>()] = lcg(n, base + idx++, inp[2].get<double>());
    }
    std::vector<Variant> vs;
    // shared state of the variants (kept alive for the whole case)
    auto outbuf = std::make_shared<std::vector<float>>();
    if (op == "gemm" || op == "gemv") {
      const size_t M = c["M"], N = c["N"], K = c["K"];
      const float* A = in["a"].data();
      const float* B = in["b"].data();
      outbuf->assign(M * N, 0.f);
      float* C = outbuf->data();
      auto get = [outbuf] { return *outbuf; };
      vs.push_back({"kernels::gemm", [=] { kernels::gemm(false, false, M, N, K, 1.f, A, K, B, N, 0.f, C, N); g_sink = C[0]; }, get});
      if (M == 1)
        vs.push_back({"kernels::gemv (A^T x)", [=] { kernels::gemv(true, K, N, 1.f, B, N, A, 0.f, C); g_sink = C[0]; }, get});
    } else if (op == "softmax") {
      const size_t R = c["R"], Cc = c["C"];
      const float* X = in["x"].data();
      outbuf->assign(R * Cc, 0.f);
      float* Y = outbuf->data();
      vs.push_back({"kernels::softmax_rows", [=] { kernels::softmax_rows(R, Cc, X, Cc, nullptr, 0, Y, Cc); g_sink = Y[0]; },
                    [outbuf] { return *outbuf; }});
    } else if (op == "sdpa") {
      const size_t T = c["T"], D = c["D"];
      auto q = std::make_shared<Tensor3>(tensor3(in["q"], 1, T, D));
      auto k = std::make_shared<Tensor3>(tensor3(in["k"], 1, T, D));
      auto v = std::make_shared<Tensor3>(tensor3(in["v"], 1, T, D));
      auto last = std::make_shared<Tensor3>();
      vs.push_back({"scaled_dot_attention (need_weights=false)",
                    [=] { *last = scaled_dot_attention(*q, *k, *v, {}, false).out; g_sink = last->data()[0]; },
                    [=] { return std::vector<float>(last->begin(), last->end()); }});
    } else if (op == "mha") {
      const size_t T = c["T"], E = c["E"], H = c["H"];
      Rng rng(1);
      auto mha = std::make_shared<MultiheadAttention>(E, H, rng);
      auto setp = [&](Param& p, const std::vector<float>& a) {
        if (p.size() != a.size()) throw std::runtime_error("bench_suite: parameter size mismatch");
        std::copy(a.begin(), a.end(), p.data());
      };
      setp(mha->in_proj_weight, in["in_proj_weight"]);
      setp(mha->in_proj_bias, in["in_proj_bias"]);
      setp(mha->out_proj_weight, in["out_proj.weight"]);
      setp(mha->out_proj_bias, in["out_proj.bias"]);
      auto x = std::make_shared<Tensor3>(tensor3(in["x"], 1, T, E));
      auto last = std::make_shared<Tensor3>();
      MhaOptions mo;
      mo.need_weights = false;
      vs.push_back({"MultiheadAttention.forward (need_weights=false)",
                    [=] { *last = mha->forward(*x, *x, *x, mo).out; g_sink = last->data()[0]; },
                    [=] { return std::vector<float>(last->begin(), last->end()); }});
    } else {
      std::cerr << "bench_suite: unknown op " << op << "\n";
      return 2;
    }
    json cres = json::object();
    for (auto& v : vs) {
      v.run();
      if (!out_dir.empty()) {
        std::string safe = v.name;
        for (auto& ch : safe) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        const std::string path = out_dir + "/native_" + id + "_" + safe + ".f32";
        const std::vector<float> o = v.output();
        std::FILE* fp = std::fopen(path.c_str(), "wb");
        if (!fp) { std::cerr << "bench_suite: cannot write " << path << "\n"; return 1; }
        std::fwrite(o.data(), sizeof(float), o.size(), fp);
        std::fclose(fp);
      }
      json t = json::array();
      for (int r = 0; r < rounds; ++r) t.push_back(round_median(v.run, batch_ms));
      cres[v.name] = t;
    }
    res["cases"][id] = cres;
  }
  std::cout << res.dump() << "\n";
  return 0;
}
