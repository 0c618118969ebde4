import AuthlogCore
public import AuthlogPostgres
import AuthlogStore
public import Logging
public import ServiceLifecycle

extension ServerComponents {
    /// The server's background work, as services for the application's service group, in start order. The
    /// group stops them in reverse order after the HTTP server (placed after them) has finished its requests,
    /// so the sealer, first here, stops last and seals what those requests committed.
    ///
    /// - the sealer's timer (1 s): seals what another process committed and could not seal, and records the
    ///   queued rows it refused for their MAC as `audit.events_refused`;
    /// - the sealing watch (1 s): the queue in `/metrics`, and `audit.sealing_stalled` when the same entry stays
    ///   at its head for a minute (``SealingWatch``);
    /// - refusals (1 s): what the rate limits and the edge refused, as the ``RefusalRecorder``'s few events;
    ///   at shutdown every open window, before the sealer's last pass;
    /// - write outages (1 s): each outage of this process's writes as one `audit.write_outage` once writing
    ///   works again (``WriteAvailability``), at shutdown too;
    /// - rate-limit sync (1 s): the budgets shared with the other processes (``RateLimitSync``);
    /// - checkpoints (1 s check) when a checkpoint key is configured, and then the witness submissions (1 s
    ///   check, each witness at most once per `log.witness_interval_seconds`; a witness's alarm recorded once as
    ///   `audit.witness_alarm`, its evidence in `log.checkpoint_directory`) when witnesses are configured;
    /// - nonce purge (10 min), session sweeper (1 min), lock expiry (1 min: `identity.unlocked` for the identity
    ///   locks that ran out), provider revocation retries (15 s);
    /// - report counts (1 s): the writers' pending report counts folded into the roll-ups (``ReportRollups``);
    /// - log months (1 min): partitions created ahead and the log moved to a new month (``LogMonths``);
    /// - tile directory (1 s) when `log.tile_directory` is set: the tree of the latest checkpoint as tlog-tiles
    ///   static files (``TileDirectory``), read from the read database, never on the write path;
    /// - sinks (1 s each) when `sinks` are configured: sealed events pushed to each sink by its own service
    ///   (``SinkDeliverer``), its lease given up at shutdown; and every sink's cursor read into `/metrics`;
    /// - places (`places.reload_interval_seconds`, default 300) when `places.city_database` is set: the MaxMind
    ///   DB files opened again when replaced; and SIGHUP, always trapped, reloads them at once.
    public func backgroundServices(pool: ConnectionPool, logger: Logger) -> [any Service] {
        let sealer: [any Service] = [
            self.sealerService(logger: logger), self.sealingWatchService(logger: logger),
            self.refusalService(logger: logger),
            self.writeOutageService(logger: logger), self.limitSyncService(pool: pool, logger: logger),
        ]
        return sealer + self.logServices(pool: pool, logger: logger) + self.upkeepServices(pool: pool, logger: logger)
            + self.placeServices(logger: logger)
    }

    /// The sealer: wakes every second, records refused queue rows, and seals what is left on shutdown.
    private func sealerService(logger: Logger) -> PeriodicService {
        let store = self.store
        return PeriodicService(
            name: "sealer",
            every: .seconds(1),
            body: {
                await store.sealer.wake()
                do {
                    try await store.recordRefusedEvents()
                } catch {
                    logger.warning("could not record refused queue rows", metadata: ["error": "\(error)"])
                }
            },
            onShutdown: {
                do {
                    try await store.sealPending()
                } catch {
                    logger.warning(
                        "could not seal the last events; the next sealer will",
                        metadata: ["error": "\(error)"]
                    )
                }
            }
        )
    }

    /// The sealing watch (``SealingWatch``): once a second, apart from the sealer, so that a sealer or an append
    /// that hangs does not stop it.
    private func sealingWatchService(logger: Logger) -> PeriodicService {
        let watch = SealingWatch(store: self.store)
        return PeriodicService(
            name: "sealing-watch",
            every: .seconds(1),
            body: {
                do {
                    try await watch.check()
                } catch {
                    logger.warning("could not watch the sealer's queue", metadata: ["error": "\(error)"])
                }
            }
        )
    }

    /// The refusal recorder's writer: every second the first refusals and the ended windows, at shutdown every
    /// window still open.
    private func refusalService(logger: Logger) -> PeriodicService {
        let recorder = self.limiter.recorder
        let store = self.store
        return PeriodicService(
            name: "refusals",
            every: .seconds(1),
            body: {
                do {
                    try await recorder.flush(into: store)
                } catch {
                    logger.warning(
                        "could not record refused requests; kept for the next pass",
                        metadata: ["error": "\(error)"]
                    )
                }
            },
            onShutdown: {
                do {
                    try await recorder.flush(into: store, everything: true)
                } catch {
                    logger.error("could not record the last refused requests", metadata: ["error": "\(error)"])
                }
            }
        )
    }

    /// The write outages' recorder: every second what ended (or, after a quiet spell, the probe), and once more
    /// at shutdown.
    private func writeOutageService(logger: Logger) -> PeriodicService {
        let writes = self.writes
        let store = self.store
        let record: @Sendable () async -> Void = {
            do {
                try await writes.record(into: store)
            } catch {
                logger.debug("the write outage is not recorded yet", metadata: ["error": "\(error)"])
            }
        }
        return PeriodicService(name: "write-outages", every: .seconds(1), body: record, onShutdown: record)
    }

    /// The rate limits' shared budgets: every second, what this process admitted out and the others' in.
    private func limitSyncService(pool: ConnectionPool, logger: Logger) -> PeriodicService {
        let sync = self.limitSync
        let enabled = self.limiter.policy.enabled
        return PeriodicService(name: "rate-limit-sync", every: .seconds(1)) {
            guard enabled else { return }
            do {
                try await sync.pass(pool: pool)
            } catch {
                logger.warning(
                    "could not share the rate limits with the other processes; enforcing this process's own",
                    metadata: ["error": "\(error)"]
                )
            }
        }
    }

    /// The checkpoint scheduler, the witness submitter, the sinks and the tile directory, each when configured.
    private func logServices(pool: ConnectionPool, logger: Logger) -> [any Service] {
        var services: [any Service] = []
        if let checkpointer = self.checkpointer {
            let scheduler = CheckpointScheduler(
                checkpointer: checkpointer,
                pool: pool,
                settings: self.checkpoints,
                recordingFailuresIn: self.store
            )
            let submitter =
                self.witnesses.witnesses.isEmpty
                ? nil
                : WitnessSubmitter(
                    settings: self.witnesses,
                    store: self.store,
                    metrics: self.metrics.witnesses,
                    logger: logger,
                    evidenceDirectory: self.checkpoints.directory
                )
            services.append(
                PeriodicService(name: "checkpoints", every: .seconds(1)) {
                    // A new checkpoint goes to the witnesses at once (each still at most once per interval).
                    if await scheduler.signIfDue(logger: logger), let submitter { await submitter.pass() }
                }
            )
            if let submitter {
                services.append(PeriodicService(name: "witnesses", every: .seconds(1)) { await submitter.pass() })
            }
        }
        services += self.sinkServices(pool: pool, logger: logger)
        if let path = self.checkpoints.tileDirectory {
            let directory = TileDirectory(path: path)
            let reads = self.reads
            services.append(
                PeriodicService(name: "tile-directory", every: .seconds(1)) {
                    do {
                        _ = try await reads.read(measuringLag: false) { try await directory.update(on: $0) }
                    } catch {
                        logger.warning("could not write the tile directory", metadata: ["error": "\(error)"])
                    }
                }
            )
        }
        return services
    }

    /// One delivery service per sink, each on its own schedule (a slow sink holds no other back), and one that
    /// reads every sink's cursor and the log's head into `/metrics` each second, whether this process delivers
    /// or waits for another's lease.
    private func sinkServices(pool: ConnectionPool, logger: Logger) -> [any Service] {
        guard !self.sinks.sinks.isEmpty else { return [] }
        let cursors = SinkCursors(pool: pool)
        let metrics = self.metrics.sinks
        var services: [any Service] = [
            PeriodicService(name: "sink-status", every: .seconds(1)) {
                do {
                    let (head, states) = try await cursors.states()
                    metrics.record(states: states, head: head)
                } catch {
                    logger.debug("could not read the sinks' cursors", metadata: ["error": "\(error)"])
                }
            }
        ]
        for sink in self.sinks.sinks {
            let deliverer = SinkDeliverer(
                sink: sink,
                cursors: cursors,
                pool: pool,
                store: self.store,
                metrics: metrics,
                logger: logger
            )
            services.append(
                PeriodicService(
                    name: "sink-\(sink.name)",
                    every: .seconds(1),
                    body: { await deliverer.pass(while: { !Task.isShuttingDownGracefully }) },
                    onShutdown: { await deliverer.releaseLease() }
                )
            )
        }
        return services
    }

    /// Nonce and DPoP proof purges, session sweeper, lock expiry, provider revocation retries, report counts and log months.
    private func upkeepServices(pool: ConnectionPool, logger: Logger) -> [any Service] {
        let nonces = NonceStore(pool: pool)
        let dpopProofs = DPoPProofStore(pool: pool)
        let store = self.store
        let sweeper = self.account.sweeper
        let locks = self.account.locks
        let revoker = self.account.revoker
        return [
            PeriodicService(name: "nonce-purge", every: .seconds(600)) {
                // Nonces consumed more than a day ago (longer than any identity token lives, so a replay is
                // still caught), and issued ones that expired before then.
                do {
                    let purged = try await nonces.purge(before: Timestamp.now().adding(seconds: -86_400))
                    if purged > 0 { logger.debug("purged old nonces", metadata: ["count": "\(purged)"]) }
                } catch {
                    logger.warning("could not purge old nonces", metadata: ["error": "\(error)"])
                }
            },
            PeriodicService(name: "dpop-proof-purge", every: .seconds(30)) {
                // Proofs whose iat left the accepted window: they fail on their iat before the ledger is asked,
                // so the rows stay bounded by the proofs accepted in one window and one purge interval.
                do {
                    let purged = try await dpopProofs.purge(before: Timestamp.now())
                    if purged > 0 { logger.debug("purged old DPoP proofs", metadata: ["count": "\(purged)"]) }
                } catch {
                    logger.warning("could not purge old DPoP proofs", metadata: ["error": "\(error)"])
                }
            },
            PeriodicService(name: "session-sweeper", every: .seconds(60)) { await sweeper.sweepOnce(logger: logger) },
            PeriodicService(name: "lock-expiry", every: .seconds(60)) {
                await locks.recordExpiriesOnce(logger: logger)
            },
            PeriodicService(name: "provider-revocations", every: .seconds(15)) {
                await revoker.retryOnce(logger: logger)
            },
            PeriodicService(name: "report-counts", every: .seconds(1)) {
                do {
                    try await ReportRollups.fold(using: pool)
                } catch {
                    logger.warning("could not fold the report counts", metadata: ["error": "\(error)"])
                }
            },
            PeriodicService(name: "log-months", every: .seconds(60)) {
                do {
                    try await LogMonths.prepare(authenticator: store.authenticator, using: pool)
                } catch {
                    logger.warning("could not prepare the log's next months", metadata: ["error": "\(error)"])
                }
            },
        ]
    }
}
