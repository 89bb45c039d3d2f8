// cooperative_groups/scan.h for plain sources on the SIMT executor: csrc/simt/plain/cg.h.
#pragma once

#include "../../wavekit_plain.h"
