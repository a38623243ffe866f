#include "attnlab/data/number_words.hpp"

#include <unordered_set>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::data {

namespace {
const char* kOnes[] = {"zero",    "one",     "two",       "three",    "four",
                       "five",    "six",     "seven",     "eight",    "nine",
                       "ten",     "eleven",  "twelve",    "thirteen", "fourteen",
                       "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
const char* kTens[] = {"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};

std::string below_thousand(uint64_t n) {  // 1..999
  std::string s;
  auto add = [&](const std::string& w) { s += (s.empty() ? "" : " ") + w; };
  if (n >= 100) {
    add(kOnes[n / 100]);
    add("hundred");
    n %= 100;
  }
  if (n >= 20) {
    add(kTens[n / 10]);
    n %= 10;
    if (n) add(kOnes[n]);
  } else if (n) {
    add(kOnes[n]);
  }
  return s;
}

const char* kZhDigits[] = {"零", "一", "二", "三", "四", "五", "六", "七", "八", "九"};

// 1..9999; `lead` = nothing written before (so 10..19 start with 十 alone)
std::string zh_group(uint64_t n, bool lead) {
  const char* names[] = {"千", "百", "十", ""};
  const uint64_t places[] = {1000, 100, 10, 1};
  std::string s;
  bool started = false, zero = false;
  for (int i = 0; i < 4; ++i) {
    const uint64_t d = n / places[i] % 10;
    if (d == 0) {
      zero = zero || started;
      continue;
    }
    if (zero) s += "零";
    zero = false;
    if (places[i] == 10 && d == 1 && !started && lead) s += "十";
    else s += std::string(kZhDigits[d]) + names[i];
    started = true;
  }
  return s;
}
}  // namespace

std::string english_number(uint64_t n) {
  ATTNLAB_CHECK(n < 1000000, "english_number: expected 0..999999, got ", n);
  if (n == 0) return "zero";
  std::string s;
  if (n >= 1000) s = below_thousand(n / 1000) + " thousand";
  if (n % 1000) s += (s.empty() ? "" : " ") + below_thousand(n % 1000);
  return s;
}

std::string chinese_number(uint64_t n) {
  ATTNLAB_CHECK(n < 100000000, "chinese_number: expected 0..99999999, got ", n);
  if (n == 0) return "零";
  const uint64_t hi = n / 10000, lo = n % 10000;
  if (!hi) return zh_group(lo, true);
  std::string s = zh_group(hi, true) + "万";
  if (lo) s += (lo < 1000 ? "零" : "") + zh_group(lo, false);
  return s;
}

std::vector<TextPair> number_pairs(size_t count, uint64_t max, uint64_t seed, const std::string& language,
                                   const std::string& direction) {
  ATTNLAB_CHECK(language == "en" || language == "zh", "number_pairs: language must be en or zh, got '",
                language, "'");
  ATTNLAB_CHECK(direction == "words-digits" || direction == "digits-words",
                "number_pairs: direction must be words-digits or digits-words, got '", direction, "'");
  std::vector<uint64_t> nums;
  if (count > max) {
    for (uint64_t i = 0; i <= max; ++i) nums.push_back(i);
    Rng r(seed);
    r.shuffle(nums);
  } else {
    Rng r(seed);
    std::unordered_set<uint64_t> seen;
    while (nums.size() < count) {
      const uint64_t v = ((uint64_t(r.next_u32()) << 32) | r.next_u32()) % (max + 1);
      if (seen.insert(v).second) nums.push_back(v);
    }
  }
  std::vector<TextPair> out;
  for (size_t i = 0; i < nums.size(); ++i) {
    const std::string w = language == "en" ? english_number(nums[i]) : chinese_number(nums[i]);
    const std::string d = std::to_string(nums[i]);
    out.push_back(direction == "words-digits" ? TextPair{w, d, i + 1} : TextPair{d, w, i + 1});
  }
  return out;
}

std::string pairs_tsv(const std::vector<TextPair>& pairs) {
  std::string s;
  for (const auto& p : pairs) s += p.src + "\t" + p.tgt + "\n";
  return s;
}

}  // namespace attnlab::data
