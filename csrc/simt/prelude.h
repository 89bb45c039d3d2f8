// What the sources in csrc/simt include: the device layer's width header (the executor's build
// names its arch header, namespace and width on the command line) and a way to give
// their extern "C" entry points a name per width, so both widths link into one binary.
#pragma once

#include "../wavekit/width.h"

// WK_SIMT_EXPORT(f) is wk_simt32_f or wk_simt64_f.
#define WK_SIMT_PASTE2(a, b, c) a##b##_##c
#define WK_SIMT_PASTE(a, b, c) WK_SIMT_PASTE2(a, b, c)
#define WK_SIMT_EXPORT(name) WK_SIMT_PASTE(wk_simt, WK_WARP_SIZE, name)
