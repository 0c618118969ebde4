import AuthlogPlaces
public import Logging
public import ServiceLifecycle
import UnixSignals

extension ServerComponents {
    /// The operator's MaxMind DB files, when configured: checked for a replacement every
    /// `places.reload_interval_seconds`, and reloaded at once on SIGHUP. A file that cannot be used keeps the one
    /// in use and is logged once per change.
    func placeServices(logger: Logger) -> [any Service] {
        guard let places = self.account.places else { return [] }
        let check = PeriodicService(name: "places", every: .seconds(self.account.placesReloadSeconds)) {
            PlaceReloadLog.log(places.reload(), logger: logger)
        }
        return [check, HangupReloadService(places: places, logger: logger)]
    }
}

/// Reloads the MaxMind DB files on each SIGHUP, as operators expect of a daemon after replacing its files.
struct HangupReloadService: Service {
    let places: PlaceLookup
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try await cancelWhenGracefulShutdown {
            for await _ in hangups {
                self.logger.info("SIGHUP: reloading the places files")
                PlaceReloadLog.log(self.places.reload(force: true), logger: self.logger)
            }
        }
    }
}

/// How reloads are logged.
enum PlaceReloadLog {
    static func log(_ outcomes: [PlaceLookup.ReloadOutcome], logger: Logger) {
        for outcome in outcomes {
            switch outcome {
            case .reloaded(let setting, let path, let buildEpoch):
                logger.info(
                    "places file reloaded",
                    metadata: ["setting": "\(setting)", "path": "\(path)", "build_epoch": "\(buildEpoch)"]
                )
            case .failed(let error):
                logger.error("places file not reloaded; the one in use stays", metadata: ["error": "\(error)"])
            }
        }
    }
}
