// The executor's words: the names of warp collectives, how reports write lanes, threads, hex values and source sites, the name
// a kernel's launches report under, and the text of each launch error code.
#include <stdio.h>
#include <string.h>

#include "internal.h"

namespace wk_simt {

const char* op_name(Op op) {
  switch (op) {
    case Op::All: return "all_sync";
    case Op::Any: return "any_sync";
    case Op::Uni: return "uni_sync";
    case Op::Ballot: return "ballot_sync";
    case Op::ShflIdx: return "shfl_sync";
    case Op::ShflUp: return "shfl_up_sync";
    case Op::ShflDown: return "shfl_down_sync";
    case Op::ShflXor: return "shfl_xor_sync";
    case Op::MatchAny: return "match_any_sync";
    case Op::MatchAll: return "match_all_sync";
    case Op::SyncWarp: return "syncwarp";
    case Op::ActiveMask: return "activemask";
    case Op::BallotActive: return "ballot (active lanes)";
    case Op::WaveBallot: return "uicmp ballot";
    case Op::WavePermute: return "ds_bpermute";
    case Op::WaveFirstLane: return "readfirstlane";
  }
  return "?";
}

std::string hex(uint64_t v) {
  char b[32];
  snprintf(b, sizeof b, "%#llx", (unsigned long long)v);
  return b;
}

std::string lane_list(uint64_t bits) {
  std::string s;
  for (unsigned l = 0; l < 64;) {
    if (!(bits >> l & 1)) {
      ++l;
      continue;
    }
    unsigned e = l;
    while (e + 1 < 64 && (bits >> (e + 1) & 1)) ++e;
    if (!s.empty()) s += ",";
    s += std::to_string(l);
    if (e > l) s += "-" + std::to_string(e);
    l = e + 1;
  }
  return s.empty() ? "none" : s;
}

std::string thread_list(const std::vector<unsigned>& ts) {
  std::string s;
  for (size_t i = 0; i < ts.size();) {
    size_t j = i;
    while (j + 1 < ts.size() && ts[j + 1] == ts[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(ts[i]);
    if (j > i) s += "-" + std::to_string(ts[j]);
    i = j + 1;
  }
  return s;
}

std::string site_str(Site s) {
  if (!s.file) return s.pc ? pc_token(s.pc) : "?";
  const char* f = strstr(s.file, "csrc/");
  return std::string(f ? f : s.file) + ":" + std::to_string(s.line);
}

bool same_site(Site a, Site b) {
  return a.line == b.line && a.pc == b.pc &&
         (a.file == b.file || (a.file && b.file && strcmp(a.file, b.file) == 0));
}

namespace {

// The kernel's name in its instantiation's spelling (strdup: null without memory).
const char* name_of(const char* pretty) {
  // GCC: "... [with auto F = ns::{anonymous}::name<args>]"; clang: "... [F = &ns::name<args>]".
  std::string s(pretty);
  size_t at = s.find("F = ");
  if (at == std::string::npos) return strdup(pretty);
  s = s.substr(at + 4);
  if (!s.empty() && s.back() == ']') s.pop_back();
  if (!s.empty() && s[0] == '&') s.erase(0, 1);
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    if (s[i] == '>' || s[i] == ')') --depth;
    if (depth == 0 && s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') start = i + 2;
  }
  return strdup(s.substr(start).c_str());  // one per kernel instantiation, kept for good
}

}  // namespace

// The name with no exception out of it: it runs in a launcher, which Rust calls. Without
// memory for the name, reports name the kernel "?" (its launch fails on its own if memory is
// still short).
const char* kernel_name_from(const char* pretty) {
  const char* name = guarded<const char*>(nullptr, nullptr, [&] { return name_of(pretty); });
  return name ? name : "?";
}

static_assert(kMaxCooperativeThreads == 16384, "error_string names the limit");

const char* error_string(int code) {
  switch (code) {
    case WK_SIMT_OK: return "no error";
    case WK_SIMT_ERR_CONFIG: return "invalid launch configuration (grid, block or warp width)";
    case WK_SIMT_ERR_ABORTED: return "a block made no progress and was abandoned (see the reports)";
    case WK_SIMT_HAZARDS: return "the launch reported hazards (see the session's reports)";
    case WK_SIMT_ERR_FAULT:
      return "a thread touched memory out of bounds of everything the launch holds; the launch "
             "was abandoned (see the InvalidAccess report)";
    case WK_SIMT_ERR_OUT_OF_MEMORY:
      return "the executor could not get memory for the launch (a fiber stack, its state or its "
             "shared memory)";
    case WK_SIMT_ERR_INTERNAL: return "the executor failed with an unexpected C++ exception";
    case WK_SIMT_ERR_COOPERATIVE_TOO_LARGE:
      return "a cooperative launch of more threads than the executor keeps co-resident "
             "(16384, a fiber each: cudaErrorCooperativeLaunchTooLarge); nothing ran";
    case WK_SIMT_ERR_NOT_COOPERATIVE:
      return "grid.sync() in a launch that is not cooperative; the launch was abandoned (see "
             "the BarrierDivergence report)";
  }
  return "unknown simt error";
}

}  // namespace wk_simt
