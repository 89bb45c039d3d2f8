// Instructions to source lines, for the reports on accesses raw.cpp's hooks saw: they know the
// instruction, not the line. A report names such a site by a token (pc_token); when the launch
// is over, resolve_sites asks addr2line (GNU binutils, or llvm-addr2line) about the object that
// holds it (the user's shared library, or the program), kept running per object, and writes
// the innermost frame outside wavekit's own headers: the line of the user's code that made the
// access, also when a helper of theirs was inlined into the kernel.
#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "internal.h"

extern char** environ;

namespace wk_simt {

namespace {

const char kMark = '\x01';  // brackets a token: never part of a path or a report's text

// A running `addr2line -a -i -e OBJECT`, asked one address at a time. addr2line flushes its
// answer to each address read from its input (it is meant to be used this way).
struct Addr2line {
  FILE* to = nullptr;
  FILE* from = nullptr;
  bool ok = false;
};

bool spawn(Addr2line& p, const char* tool, const std::string& object) {
  int in[2], out[2];
  if (pipe(in) != 0) return false;
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, in[1]);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
  const std::string e = object;
  char* argv[] = {const_cast<char*>(tool), const_cast<char*>("-a"), const_cast<char*>("-i"),
                  const_cast<char*>("-e"), const_cast<char*>(e.c_str()), nullptr};
  pid_t pid;
  const int rc = posix_spawnp(&pid, tool, &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    return false;
  }
  p.to = fdopen(in[1], "w");
  p.from = fdopen(out[0], "r");
  p.ok = p.to && p.from;
  return p.ok;
}

bool read_line(FILE* f, std::string& line) {
  char buf[4096];
  if (!fgets(buf, sizeof buf, f)) return false;
  line = buf;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return true;
}

// A frame addr2line printed that is wavekit's own code (the plain-source layer, the device
// layer), not the user's.
bool ours(const std::string& frame) {
  return frame.find("/csrc/simt/") != std::string::npos ||
         frame.find("/csrc/wavekit/") != std::string::npos;
}

// The innermost frame at `offset` in `object` outside wavekit's headers, or "" if addr2line
// cannot say. A query is the address and then 0, whose "??" answer ends the first's frames.
std::string ask(Addr2line& p, uintptr_t offset) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);  // a dead addr2line is an answer, not a signal
  const bool sent = fprintf(p.to, "%#lx\n0\n", (unsigned long)offset) > 0 && fflush(p.to) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  std::string line, best;
  if (!sent || !read_line(p.from, line)) {  // the address header
    p.ok = false;
    return "";
  }
  int frames = 0;
  for (;;) {
    if (!read_line(p.from, line)) {
      p.ok = false;
      return "";
    }
    if (frames > 0 && line.rfind("0x", 0) == 0) break;  // the sentinel's header
    ++frames;
    const size_t disc = line.find(" (discriminator");
    if (disc != std::string::npos) line.erase(disc);
    if (best.empty() && line.rfind("??", 0) != 0 && !ours(line)) best = line;
  }
  read_line(p.from, line);  // the sentinel's "??:0"
  return best;
}

struct Symbolizer {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Addr2line>> tools;
  std::map<const void*, std::string> known;

  Addr2line& tool_for(const std::string& object) {
    auto& slot = tools[object];
    if (!slot) {
      slot.reset(new Addr2line());
      const char* env = getenv("WAVEKIT_ADDR2LINE");
      if (!(env && spawn(*slot, env, object)) && !spawn(*slot, "addr2line", object))
        spawn(*slot, "llvm-addr2line", object);
    }
    return *slot;
  }

  std::string resolve(const void* pc) {
    std::lock_guard<std::mutex> g(mu);
    auto it = known.find(pc);
    if (it != known.end()) return it->second;
    std::string where;
    Dl_info info;
    if (dladdr(pc, &info) && info.dli_fbase) {
      // A position-independent object's addresses are offsets from where it was loaded; a
      // fixed-address program's are the addresses themselves.
      const auto* ehdr = static_cast<const Elf64_Ehdr*>(info.dli_fbase);
      const uintptr_t offset =
          ehdr->e_type == ET_EXEC ? (uintptr_t)pc : (uintptr_t)pc - (uintptr_t)info.dli_fbase;
      // The program itself may be named as it was started (a bare name): /proc knows its file.
      const bool program = !info.dli_fname || !info.dli_fname[0] || !strchr(info.dli_fname, '/');
      const std::string object = program ? "/proc/self/exe" : info.dli_fname;
      Addr2line& p = tool_for(object);
      if (p.ok) where = ask(p, offset);
      if (where.empty()) {
        const char* base = strrchr(object.c_str(), '/');
        char off[40];
        snprintf(off, sizeof off, "+%#lx", (unsigned long)offset);
        where = std::string(base ? base + 1 : object.c_str()) + off + " (no line: addr2line?)";
      }
    } else {
      char b[40];
      snprintf(b, sizeof b, "%p", pc);
      where = b;
    }
    known[pc] = where;
    return where;
  }
};

Symbolizer& symbolizer() {
  static Symbolizer* s = new Symbolizer();  // never destroyed: the processes outlive exit
  return *s;
}

}  // namespace

std::string pc_token(const void* pc) {
  char b[40];
  snprintf(b, sizeof b, "%c%lx%c", kMark, (unsigned long)(uintptr_t)pc, kMark);
  return b;
}

void resolve_sites(std::string& text) {
  size_t at = 0;
  while ((at = text.find(kMark, at)) != std::string::npos) {
    const size_t end = text.find(kMark, at + 1);
    if (end == std::string::npos) return;
    const uintptr_t pc = strtoull(text.substr(at + 1, end - at - 1).c_str(), nullptr, 16);
    const std::string where = symbolizer().resolve(reinterpret_cast<const void*>(pc));
    text.replace(at, end + 1 - at, where);
    at += where.size();
  }
}

}  // namespace wk_simt
