// The one list of score functions. Each row is (Id, "name"); the kind's code
// (parameters, checks, forward, backward, one-query scoring, its formula and
// aliases) is the struct <Id>Score in attention/score_kinds.cpp. The enum
// ScoreKind, parsing, names, the list exported to JS (al.scoreKinds()), the
// page's select and the tests all come from this list: adding a score is a row
// here, its struct, and its case in scripts/fixtures_attention.py.
#pragma once

#define ATTNLAB_SCORE_LIST(X) \
  X(Dot, "dot")               \
  X(ScaledDot, "scaled_dot")  \
  X(General, "general")       \
  X(Additive, "additive")     \
  X(Cosine, "cosine")         \
  X(Location, "location")
