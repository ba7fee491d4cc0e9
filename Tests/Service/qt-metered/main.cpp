// SPDX-License-Identifier: Apache-2.0
// What a Qt 6 app sees of "metered" on a NetworkManager host: QNetworkInformation with its networkmanager backend
// (in Debian's libqt6network6), loaded by name so that a missing backend fails instead of falling back to glib.
// Prints "metered=true" or "metered=false" at start and on every change, one line each, flushed at once; ends after
// SECONDS (default 120), or on SIGTERM (its default action: nothing to clean up). Built for booted-systemd-test
// against each Debian release's own Qt (6.4 in Debian 12, 6.8 in Debian 13; container_qt_metered in container.bash)
// and run in the booted root; QCoreApplication, no display.
//
//   g++ -fPIC -o qt-metered main.cpp $(pkg-config --cflags --libs Qt6Network)
//   qt-metered [SECONDS]
#include <QCoreApplication>
#include <QNetworkInformation>
#include <QStringList>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

static void report(bool metered)
{
    std::printf("metered=%s\n", metered ? "true" : "false");
    std::fflush(stdout);
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int seconds = argc > 1 ? std::atoi(argv[1]) : 120;
    if (seconds <= 0) {
        std::fprintf(stderr, "usage: qt-metered [SECONDS]\n");
        return 64;
    }
    if (!QNetworkInformation::loadBackendByName(u"networkmanager")) {
        std::fprintf(stderr, "qt-metered: no networkmanager backend (available: %s)\n",
                     qPrintable(QNetworkInformation::availableBackends().join(u", ")));
        return 1;
    }
    QNetworkInformation *info = QNetworkInformation::instance();
    if (!info->supportedFeatures().testFlag(QNetworkInformation::Feature::Metered)) {
        std::fprintf(stderr, "qt-metered: the %s backend does not support Metered\n", qPrintable(info->backendName()));
        return 1;
    }
    QObject::connect(info, &QNetworkInformation::isMeteredChanged, &app, report);
    report(info->isMetered());
    QTimer::singleShot(seconds * 1000, &app, &QCoreApplication::quit);
    return app.exec();
}
