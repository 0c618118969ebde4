import AuthlogPlaces
import Dispatch
public import Logging
public import ServiceLifecycle
import UnixSignals

extension ServerComponents {
    /// SIGHUP, always trapped (so that `systemctl reload authlog` never stops a server without places files),
    /// reloads the places files at once; with `places.city_database` set, the files are also checked for a
    /// replacement every `places.reload_interval_seconds`. A file that cannot be used keeps the one in use and
    /// is logged once per change.
    func placeServices(logger: Logger) -> [any Service] {
        let hangup = HangupReloadService(places: self.account.places, logger: logger)
        guard let places = self.account.places else { return [hangup] }
        let check = PeriodicService(name: "places", every: .seconds(self.account.placesReloadSeconds)) {
            PlaceReloadLog.log(await PlaceReloadLog.reload(places, force: false), logger: logger)
        }
        return [check, hangup]
    }
}

/// Reloads the MaxMind DB files on each SIGHUP, as operators expect of a daemon after replacing its files; says
/// so when there are none.
struct HangupReloadService: Service {
    let places: PlaceLookup?
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try await cancelWhenGracefulShutdown {
            for await _ in hangups {
                guard let places = self.places else {
                    self.logger.info("SIGHUP: nothing to reload (no places.city_database)")
                    continue
                }
                self.logger.info("SIGHUP: reloading the places files")
                PlaceReloadLog.log(await PlaceReloadLog.reload(places, force: true), logger: self.logger)
            }
        }
    }
}

/// How reloads run and are logged.
enum PlaceReloadLog {
    /// `places.reload(force:)` on a thread of its own: opening a replaced file copies tens of MB, which must
    /// not hold one of the few threads that run the requests.
    static func reload(_ places: PlaceLookup, force: Bool) async -> [PlaceLookup.ReloadOutcome] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(returning: places.reload(force: force)) }
        }
    }

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
