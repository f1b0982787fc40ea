#include "acart.h"

const char *aca_strerror(int err)
{
    switch (err) {
    case ACA_OK:
        return "success";
    case ACA_ERR_INVALID:
        return "invalid argument or malformed message";
    case ACA_ERR_NO_MEMORY:
        return "a build-time table or ring is too small";
    case ACA_ERR_BUSY:
        return "busy: already started, or another host holds the session";
    case ACA_ERR_NET:
        return "network stack refused the operation";
    case ACA_ERR_NO_PMU:
        return "no usable performance-monitoring unit";
    case ACA_ERR_STATE:
        return "not valid in the current state";
    case ACA_ERR_DENIED:
        return "access outside the allowlist";
    case ACA_ERR_UNSUPPORTED:
        return "not supported";
    case ACA_ERR_CONFIG_SIZE:
        return "struct aca_config has a size this library does not know";
    case ACA_ERR_PLATFORM:
        return "the platform seam answers wrongly (run aca_selftest)";
    case ACA_ERR_LWIP:
        return "lwIP's options cannot carry acart (the log says which)";
    default:
        return "unknown error";
    }
}
