// The CUDA header of that name, for plain sources on the SIMT executor: everything it would
// declare comes from csrc/simt/plain/wavekit_plain.h (the wrapper includes it first).
#pragma once

#include "../wavekit_plain.h"
