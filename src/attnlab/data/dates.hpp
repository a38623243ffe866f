// Date normalization data, as in TensorFlow.js's date-conversion-attention
// example: a date written in one of 20 input formats -> "YYYY-MM-DD".
//
// The 20 formats (same order and meaning as that example's INPUT_FNS; shown
// for 2015-01-23):
//    0 DDMMMYYYY     23JAN2015        10 MMM DD, YY    JAN 23, 15
//    1 MMDDYY        012315           11 MMM DD, YYYY  JAN 23, 2015
//    2 MM/DD/YY      01/23/15         12 DD.MM.YYYY    23.01.2015
//    3 MM/DD/YYYY    01/23/2015       13 D.M.YYYY      23.1.2015
//    4 M/D/YYYY      1/23/2015        14 YYYY.MM.DD    2015.01.23
//    5 DD-MM-YYYY    23-01-2015       15 YYYY.M.D      2015.1.23
//    6 D-M-YYYY      23-1-2015        16 YYYYMMDD      20150123
//    7 MMM DD YY     JAN 23 15        17 YYYY-M-D      2015-1-23
//    8 M/D/YY        1/23/15          18 D MMM YYYY    23 JAN 2015
//    9 MMM DD YYYY   JAN 23 2015      19 YYYY-MM-DD    2015-01-23 (the target itself)
// A format's name is its pattern: YYYY = 4-digit year, YY = its last two
// digits, MMM = JAN..DEC, MM/DD = zero-padded, M/D = unpadded, anything else
// is copied. Dates: every day 1950-01-01 .. 2049-12-31 (36525 days), so YY is
// ambiguous only outside that century window (50..99 -> 19xx, 00..49 -> 20xx).
// Splits are by date (see split.hpp): all 20 renderings of a date are in the
// same split.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/data/split.hpp"
#include "attnlab/data/vocab.hpp"

namespace attnlab::data {

struct Date {
  int year = 1970, month = 1, day = 1;
  bool operator==(const Date& o) const { return year == o.year && month == o.month && day == o.day; }
  bool operator!=(const Date& o) const { return !(*this == o); }
  bool operator<(const Date& o) const {
    return year != o.year ? year < o.year : month != o.month ? month < o.month : day < o.day;
  }
};

inline constexpr int kNumDateFormats = 20;
inline constexpr int kIsoDateFormat = 19;        // "YYYY-MM-DD"
inline constexpr size_t kDateMaxInputLen = 12;   // "JAN 23, 2015"
inline constexpr size_t kDateOutputLen = 10;     // "2015-01-23"
inline constexpr int kDateFirstYear = 1950, kDateLastYear = 2049;

bool is_leap_year(int year);
int days_in_month(int year, int month);
bool is_valid_date(const Date& d);  // Gregorian, years 1..9999

// Pattern names of the 20 formats, in order.
const std::vector<std::string>& date_format_names();
// Renders a date with a pattern (see above). Throws on an invalid date.
std::string render_date_pattern(const Date& d, const std::string& pattern);
// Renders a date in format k (0..19). Throws on a bad k or an invalid date.
std::string render_date(const Date& d, int format);
std::string iso_date(const Date& d);  // "YYYY-MM-DD"
// Parses "YYYY-MM-DD"; throws attnlab::Error if malformed or not a real date.
Date parse_iso_date(const std::string& s);

Date next_day(const Date& d);
// Every day from first to last, inclusive (first <= last, both valid).
std::vector<Date> date_range(const Date& first, const Date& last);
// Every day 1950-01-01 .. 2049-12-31.
std::vector<Date> all_dates();

struct DateSplit {
  uint64_t seed = 0;
  SplitFractions fractions;
  std::vector<Date> train, valid, test;  // chronological
  const std::vector<Date>& get(Split s) const {
    return s == Split::Train ? train : s == Split::Valid ? valid : test;
  }
};
// Split by date: key = the ISO string, seeded hash (independent of the list).
DateSplit split_dates(const std::vector<Date>& dates, uint64_t seed, const SplitFractions& f = {});

struct DatePair {
  std::string input;   // the date in `format`
  std::string output;  // YYYY-MM-DD
  int format = 0;
  Date date;
};
// All (date, format) pairs, date-major: for each date, each format in `formats`
// (empty = all 20).
std::vector<DatePair> make_date_pairs(const std::vector<Date>& dates, const std::vector<int>& formats = {});

// Character vocabularies (fixed, so ids never depend on the data):
// input:  specials, ' ' ',' '-' '.' '/', '0'..'9', then the letters of
//         JAN..DEC in alphabetical order (A B C D E F G J L M N O P R S T U V Y).
// output: specials, '-', '0'..'9'.
Vocab date_input_vocab();
Vocab date_output_vocab();
// Characters -> ids (no <s>/</s>); letters are upper-cased first. A character
// outside the vocabulary throws attnlab::Error naming it and its position; an
// empty string or one longer than max_len (0 = no limit) throws too.
std::vector<int> encode_date_chars(const Vocab& v, const std::string& s, size_t max_len = 0);
// Ids -> characters; stops at </s>, skips <pad> and <s>; <unk> becomes '?'.
std::string decode_date_chars(const Vocab& v, const std::vector<int>& ids);

struct DateSplitStats {
  size_t dates = 0, pairs = 0;
};
struct DateStats {
  Date first, last;
  size_t dates = 0, formats = kNumDateFormats, pairs = 0, max_input_len = 0;
  uint64_t seed = 0;
  SplitFractions fractions;
  DateSplitStats train, valid, test;
};
DateStats date_stats(const std::vector<Date>& dates, const DateSplit& split);
std::string date_stats_json(const DateStats& s, int indent = 2);

}  // namespace attnlab::data
