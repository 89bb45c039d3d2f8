// The corpus's entry table (corpus.def), one per build: the executor's at each width
// (wk_simt32_corpus_count, ...) and the CUDA test program's.
#include "corpus.h"

#define WK_CORPUS_BUG(name, widths) WK_CORPUS_ENTRY(name);
#include "corpus.def"
#undef WK_CORPUS_BUG

extern "C" {

static const wk_corpus_entry kCorpus[] = {
#define WK_CORPUS_BUG(name, widths) {#name, widths, WK_SIMT_EXPORT(corpus_##name)},
#include "corpus.def"
#undef WK_CORPUS_BUG
};

size_t WK_SIMT_EXPORT(corpus_count)(void) { return sizeof kCorpus / sizeof kCorpus[0]; }

const wk_corpus_entry* WK_SIMT_EXPORT(corpus_entry)(size_t i) {
  return i < sizeof kCorpus / sizeof kCorpus[0] ? &kCorpus[i] : nullptr;
}
}
