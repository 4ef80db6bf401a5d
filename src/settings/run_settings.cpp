#include "dls/settings/run_settings.h"

namespace dls::settings {

RunSettings RunSettings::resume_defaults() const {
  const RunSettings defaults;  // a named object: GCC 12 warns of a temporary's string here (-Wmaybe-uninitialized)
  return from_settings(to_settings(), defaults);
}

}  // namespace dls::settings
