#include "attnlab/data/dates.hpp"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"

namespace attnlab::data {

namespace {

const char* const kMonthAbbrev[12] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                      "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};

void append_int(std::string& out, int v, int width) {  // zero-padded to width (0 = none)
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<size_t>(width) - s.size(), '0');
  out += s;
}

std::string date_str(const Date& d) {
  return detail::concat(d.year, "-", d.month, "-", d.day);
}

}  // namespace

bool is_leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  ATTNLAB_CHECK(m >= 1 && m <= 12, "days_in_month: expected a month 1..12, got ", m);
  return m == 2 && is_leap_year(y) ? 29 : days[m - 1];
}

bool is_valid_date(const Date& d) {
  return d.year >= 1 && d.year <= 9999 && d.month >= 1 && d.month <= 12 && d.day >= 1 &&
         d.day <= days_in_month(d.year, d.month);
}

const std::vector<std::string>& date_format_names() {
  static const std::vector<std::string> names = {
      "DDMMMYYYY",    "MMDDYY",     "MM/DD/YY",    "MM/DD/YYYY",    "M/D/YYYY",
      "DD-MM-YYYY",   "D-M-YYYY",   "MMM DD YY",   "M/D/YY",        "MMM DD YYYY",
      "MMM DD, YY",   "MMM DD, YYYY", "DD.MM.YYYY", "D.M.YYYY",     "YYYY.MM.DD",
      "YYYY.M.D",     "YYYYMMDD",   "YYYY-M-D",    "D MMM YYYY",    "YYYY-MM-DD"};
  return names;
}

std::string render_date_pattern(const Date& d, const std::string& p) {
  ATTNLAB_CHECK(is_valid_date(d), "render_date: expected a valid date, got ", date_str(d));
  std::string out;
  size_t i = 0;
  auto at = [&](const char* tok) { return p.compare(i, std::char_traits<char>::length(tok), tok) == 0; };
  // the numeric tokens, each before the tokens it starts with: the number it writes and its
  // width (0: no padding); MMM, the month's abbreviation, is tried before them all
  struct NumberToken {
    const char* text;
    int value, width;
  };
  const NumberToken numbers[] = {{"YYYY", d.year, 4}, {"YY", d.year % 100, 2}, {"MM", d.month, 2},
                                 {"M", d.month, 0},   {"DD", d.day, 2},        {"D", d.day, 0}};
  while (i < p.size()) {
    if (at("MMM")) {
      out += kMonthAbbrev[d.month - 1];
      i += 3;
      continue;
    }
    const NumberToken* t = std::find_if(std::begin(numbers), std::end(numbers),
                                        [&](const NumberToken& n) { return at(n.text); });
    if (t == std::end(numbers)) {
      out += p[i++];
    } else {
      append_int(out, t->value, t->width);
      i += std::char_traits<char>::length(t->text);
    }
  }
  return out;
}

std::string render_date(const Date& d, int format) {
  ATTNLAB_CHECK(format >= 0 && format < kNumDateFormats, "render_date: expected a format 0..",
                kNumDateFormats - 1, ", got ", format);
  return render_date_pattern(d, date_format_names()[static_cast<size_t>(format)]);
}

std::string iso_date(const Date& d) { return render_date(d, kIsoDateFormat); }

Date parse_iso_date(const std::string& s) {
  bool ok = s.size() == 10 && s[4] == '-' && s[7] == '-';
  for (size_t i = 0; ok && i < s.size(); ++i)
    if (i != 4 && i != 7) ok = s[i] >= '0' && s[i] <= '9';
  ATTNLAB_CHECK(ok, "parse_iso_date: expected YYYY-MM-DD, got '", s, "'");
  Date d{std::stoi(s.substr(0, 4)), std::stoi(s.substr(5, 2)), std::stoi(s.substr(8, 2))};
  ATTNLAB_CHECK(is_valid_date(d), "parse_iso_date: '", s, "' is not a calendar date");
  return d;
}

Date next_day(const Date& d) {
  ATTNLAB_CHECK(is_valid_date(d), "next_day: expected a valid date, got ", date_str(d));
  Date n = d;
  if (++n.day > days_in_month(n.year, n.month)) {
    n.day = 1;
    if (++n.month > 12) {
      n.month = 1;
      ++n.year;
    }
  }
  return n;
}

std::vector<Date> date_range(const Date& first, const Date& last) {
  ATTNLAB_CHECK(is_valid_date(first) && is_valid_date(last) && !(last < first),
                "date_range: expected valid dates with first <= last, got ", date_str(first), " .. ",
                date_str(last));
  std::vector<Date> out;
  for (Date d = first;; d = next_day(d)) {
    out.push_back(d);
    if (d == last) break;
  }
  return out;
}

std::vector<Date> all_dates() { return date_range({kDateFirstYear, 1, 1}, {kDateLastYear, 12, 31}); }

DateSplit split_dates(const std::vector<Date>& dates, uint64_t seed, const SplitFractions& f) {
  f.check();
  DateSplit s;
  s.seed = seed;
  s.fractions = f;
  std::vector<Date> sorted(dates);
  std::sort(sorted.begin(), sorted.end());
  ATTNLAB_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
                "split_dates: expected distinct dates, got a repeated one");
  for (const Date& d : sorted) split_part(s, iso_date(d), seed, f).push_back(d);
  return s;
}

std::vector<DatePair> make_date_pairs(const std::vector<Date>& dates, const std::vector<int>& formats) {
  std::vector<int> fmts = formats;
  if (fmts.empty())
    for (int k = 0; k < kNumDateFormats; ++k) fmts.push_back(k);
  std::vector<DatePair> out;
  out.reserve(dates.size() * fmts.size());
  for (const Date& d : dates) {
    const std::string iso = iso_date(d);
    for (int k : fmts) out.push_back(DatePair{render_date(d, k), iso, k, d});
  }
  return out;
}

Vocab date_input_vocab() {
  Vocab v;
  for (const char* s : {" ", ",", "-", ".", "/"}) v.add(s);
  for (char c = '0'; c <= '9'; ++c) v.add(std::string(1, c));
  std::string letters;
  for (const char* m : kMonthAbbrev) letters += m;
  std::sort(letters.begin(), letters.end());
  letters.erase(std::unique(letters.begin(), letters.end()), letters.end());
  for (char c : letters) v.add(std::string(1, c));
  return v;
}

Vocab date_output_vocab() {
  Vocab v;
  v.add("-");
  for (char c = '0'; c <= '9'; ++c) v.add(std::string(1, c));
  return v;
}

std::vector<int> encode_date_chars(const Vocab& v, const std::string& s, size_t max_len) {
  ATTNLAB_CHECK(!s.empty(), "encode_date_chars: expected a date string, got an empty one");
  ATTNLAB_CHECK(max_len == 0 || s.size() <= max_len, "encode_date_chars: expected at most ", max_len,
                " characters, got ", s.size(), " ('", s, "')");
  std::vector<int> ids;
  ids.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    const std::string tok(1, c);
    ATTNLAB_CHECK(v.contains(tok) && v.id(tok) >= 4, "encode_date_chars: character code ",
                  static_cast<int>(static_cast<unsigned char>(s[i])), " ('", s[i], "') at position ", i,
                  " of '", s, "' is not in the vocabulary (", v.size() - 4, " characters)");
    ids.push_back(v.id(tok));
  }
  return ids;
}

std::string decode_date_chars(const Vocab& v, const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) {
    if (id == Vocab::kEos) break;
    if (id == Vocab::kPad || id == Vocab::kBos) continue;
    out += id == Vocab::kUnk ? std::string("?") : v.token(id);
  }
  return out;
}

DateStats date_stats(const std::vector<Date>& dates, const DateSplit& split) {
  ATTNLAB_CHECK(!dates.empty(), "date_stats: expected at least one date");
  DateStats s;
  s.first = *std::min_element(dates.begin(), dates.end());
  s.last = *std::max_element(dates.begin(), dates.end());
  s.dates = dates.size();
  s.pairs = dates.size() * kNumDateFormats;
  for (const Date& d : dates)
    for (int k = 0; k < kNumDateFormats; ++k) s.max_input_len = std::max(s.max_input_len, render_date(d, k).size());
  s.seed = split.seed;
  s.fractions = split.fractions;
  s.train = {split.train.size(), split.train.size() * kNumDateFormats};
  s.valid = {split.valid.size(), split.valid.size() * kNumDateFormats};
  s.test = {split.test.size(), split.test.size() * kNumDateFormats};
  return s;
}

std::string date_stats_json(const DateStats& s, int indent) {
  using nlohmann::json;
  auto sp = [](const DateSplitStats& t) { return json{{"dates", t.dates}, {"pairs", t.pairs}}; };
  json j = {{"dataset", "dates"},
            {"task", "date in one of 20 formats (tfjs date-conversion-attention) -> YYYY-MM-DD"},
            {"first", iso_date(s.first)},
            {"last", iso_date(s.last)},
            {"dates", s.dates},
            {"formats", date_format_names()},
            {"pairs", s.pairs},
            {"max_input_len", s.max_input_len},
            {"output_len", kDateOutputLen},
            {"split", split_stats_json("date", s.seed, s.fractions, sp(s.train), sp(s.valid), sp(s.test))}};
  return j.dump(indent);
}

}  // namespace attnlab::data
