// The checkpoint's reader and writer declared, for the headers that only pass them by pointer
// or reference (checkpoint.h defines them).
#pragma once

namespace dls::checkpoint {
class CheckpointReader;
class CheckpointWriter;
}  // namespace dls::checkpoint
