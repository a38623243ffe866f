// Seeded random numbers that are identical on every platform (native and
// wasm, libstdc++ and libc++): the std:: distributions are not, so the same
// seed would give different models. xoshiro128** for bits, Box-Muller normals.
#pragma once
#include <cmath>
#include <cstdint>

namespace attnlab {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }
  void reseed(uint64_t seed) {
    uint64_t z = seed;
    for (uint32_t& s : s_) {  // splitmix64 expands the seed
      z += 0x9E3779B97F4A7C15ull;
      uint64_t x = z;
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      s = static_cast<uint32_t>((x ^ (x >> 31)) >> 16);
    }
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
    has_spare_ = false;
  }
  uint32_t next_u32() {
    const uint32_t result = rotl(s_[1] * 5, 7) * 9;
    const uint32_t t = s_[1] << 9;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 11);
    return result;
  }
  // uniform in [0, 1)
  double uniform() { return (next_u32() >> 8) * (1.0 / 16777216.0); }
  float uniform(float lo, float hi) { return lo + static_cast<float>(uniform()) * (hi - lo); }
  // uniform integer in [0, n)
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(uniform() * n) % (n ? n : 1); }
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = uniform();
    while (u1 <= 1e-300) u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(6.283185307179586 * u2);
    has_spare_ = true;
    return r * std::cos(6.283185307179586 * u2);
  }
  float normal(float mean, float std) { return mean + std * static_cast<float>(normal()); }
  // Fisher-Yates shuffle of any random-access container
  template <class V>
  void shuffle(V& v) {
    for (size_t i = v.size(); i > 1; --i) {
      const size_t j = below(static_cast<uint32_t>(i));
      std::swap(v[i - 1], v[j]);
    }
  }

 private:
  static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
  uint32_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace attnlab
