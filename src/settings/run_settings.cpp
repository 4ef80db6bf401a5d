#include "dls/settings/run_settings.h"

namespace dls::settings {

RunSettings RunSettings::resume_defaults() const { return from_settings(to_settings(), RunSettings{}); }

}  // namespace dls::settings
