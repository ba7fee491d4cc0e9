// libsystemd: sd-daemon (notify, socket activation) and sd-bus (D-Bus), as systemd's own daemons use them.
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
