// Precompiled header of the dls library, reused by the apps and the tests.
// Only heavy, stable third-party headers belong here; every file still includes what it
// uses, so the project builds with DLS_USE_PCH=OFF too.
#pragma once
#include <torch/torch.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>
