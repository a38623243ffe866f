#include "attnlab/eval/mt_metrics.hpp"

#include <map>

#include "attnlab/core/error.hpp"
#include "attnlab/data/text_util.hpp"

namespace attnlab::eval {

namespace {

// UTF-8 -> code points (an Error naming the offset of a byte that starts no valid sequence).
std::vector<uint32_t> code_points(const std::string& s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
    const uint32_t c = b(i);
    size_t n = 0;
    uint32_t cp = 0, lo = 0x80, hi = 0xBF;
    if (c < 0x80) n = 1, cp = c;
    else if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) {
      const uint32_t x = b(i + k);
      ok = x >= (k == 1 ? lo : 0x80) && x <= (k == 1 ? hi : 0xBF);
      cp = (cp << 6) | (x & 0x3F);
    }
    ATTNLAB_CHECK(ok, "metrics: expected UTF-8 text, got a bad byte at offset ", i);
    out.push_back(cp);
    i += n;
  }
  return out;
}

// Python's str.split() / str.strip() whitespace
bool py_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

// sacreBLEU's _UCODE_RANGES as Python compares them (see the header on the two ranges whose
// bounds are two-character strings: '\u2000' '0' < c <= '\u2a6d' '6' holds for U+2001..U+2A6D).
bool zh_char(uint32_t c) {
  static const uint32_t r[][2] = {
      {0x3400, 0x4DB5}, {0x4E00, 0x9FA5}, {0x9FA6, 0x9FBB}, {0xF900, 0xFA2D}, {0xFA30, 0xFA6A},
      {0xFA70, 0xFAD9}, {0x2001, 0x2A6D}, {0x2F81, 0x2FA1}, {0xFF00, 0xFFEF}, {0x2E80, 0x2EFF},
      {0x3000, 0x303F}, {0x31C0, 0x31EF}, {0x2F00, 0x2FDF}, {0x2FF0, 0x2FFF}, {0x3100, 0x312F},
      {0x31A0, 0x31BF}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F}, {0x2600, 0x26FF}, {0x2700, 0x27BF},
      {0x3200, 0x32FF}, {0x3300, 0x33FF}};
  for (const auto& x : r)
    if (c >= x[0] && c <= x[1]) return true;
  return false;
}

bool digit(uint32_t c) { return c >= '0' && c <= '9'; }
bool step1_char(uint32_t c) {  // [\{-\~\[-\` -\&\(-\+\:-\@\/]
  return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
         (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == 0x2F;
}

using Cps = std::vector<uint32_t>;

// in with a space on both sides of every code point c for which pick(c)
Cps space_around(const Cps& in, bool (*pick)(uint32_t)) {
  Cps out;
  for (uint32_t c : in) {
    if (pick(c)) {
      out.push_back(' ');
      out.push_back(c);
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The four substitutions, each one left-to-right, non-overlapping pass as re.sub makes it.
Cps regexp_steps(const Cps& in) {
  const Cps a = space_around(in, step1_char);
  Cps b;  // ([^0-9])([\.,]) -> \1 \2 (space after)
  for (size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && !digit(a[i]) && (a[i + 1] == '.' || a[i + 1] == ',')) {
      b.push_back(a[i]);
      b.push_back(' ');
      b.push_back(a[i + 1]);
      b.push_back(' ');
      i += 2;
    } else {
      b.push_back(a[i++]);
    }
  }
  Cps c;  // ([\.,])([^0-9]) -> " \1 \2"
  for (size_t i = 0; i < b.size();) {
    if (i + 1 < b.size() && (b[i] == '.' || b[i] == ',') && !digit(b[i + 1])) {
      c.push_back(' ');
      c.push_back(b[i]);
      c.push_back(' ');
      c.push_back(b[i + 1]);
      i += 2;
    } else {
      c.push_back(b[i++]);
    }
  }
  Cps d;  // ([0-9])(-) -> "\1 \2 "
  for (size_t i = 0; i < c.size();) {
    if (i + 1 < c.size() && digit(c[i]) && c[i + 1] == '-') {
      d.push_back(c[i]);
      d.push_back(' ');
      d.push_back('-');
      d.push_back(' ');
      i += 2;
    } else {
      d.push_back(c[i++]);
    }
  }
  return d;
}

std::vector<std::string> split_py(const Cps& cps) { return data::split_runs(cps, py_space, data::append_utf8); }

Cps strip_py(const Cps& cps) {
  size_t b = 0, e = cps.size();
  while (b < e && py_space(cps[b])) ++b;
  while (e > b && py_space(cps[e - 1])) --e;
  return Cps(cps.begin() + long(b), cps.begin() + long(e));
}

}  // namespace

std::vector<std::string> tokenize_13a_regexp(const std::string& line) {
  return split_py(regexp_steps(code_points(line)));
}

std::vector<std::string> tokenize_zh(const std::string& line) {
  return split_py(regexp_steps(space_around(strip_py(code_points(line)), zh_char)));
}

void ChrfStats::add(const std::string& hypothesis, const std::string& reference) {
  auto squeeze = [](const std::string& s) {
    Cps out;
    for (uint32_t c : code_points(s))
      if (!py_space(c)) out.push_back(c);
    return out;
  };
  const Cps h = squeeze(hypothesis), r = squeeze(reference);
  ++sentences;
  for (size_t n = 1; n <= kOrder; ++n) {
    std::map<Cps, size_t> hc, rc;
    for (size_t i = 0; i + n <= h.size(); ++i) ++hc[Cps(h.begin() + long(i), h.begin() + long(i + n))];
    for (size_t i = 0; i + n <= r.size(); ++i) ++rc[Cps(r.begin() + long(i), r.begin() + long(i + n))];
    size_t hn = 0, rn = 0, m = 0;
    for (const auto& [g, c] : hc) {
      hn += c;
      auto it = rc.find(g);
      if (it != rc.end()) m += std::min(c, it->second);
    }
    for (const auto& [g, c] : rc) rn += c;
    hyp[n - 1] += rc.empty() ? 0 : hn;
    ref[n - 1] += rn;
    match[n - 1] += m;
  }
}

double ChrfStats::score(double beta) const {
  double p = 0, r = 0;
  size_t eff = 0;
  for (size_t n = 0; n < kOrder; ++n) {
    if (hyp[n] > 0 && ref[n] > 0) {
      p += double(match[n]) / double(hyp[n]);
      r += double(match[n]) / double(ref[n]);
      ++eff;
    }
  }
  if (eff == 0) return 0.0;
  p /= double(eff);
  r /= double(eff);
  if (p + r == 0) return 0.0;
  const double b2 = beta * beta;
  return 100.0 * (1 + b2) * p * r / (b2 * p + r);
}

}  // namespace attnlab::eval
