/// Jobs a connection ended during one of its steps, resumed together once the step is over and the connection is
/// out of its owner's hands: a task resumed meanwhile often starts its next request on the same connection at once,
/// and could not borrow it. The first is held inline, so that the usual one costs no allocation.
///
/// ```swift
/// finished.append(job, .cancelled)
/// let ended = finished.take()
/// ownership.leaveLoop()
/// ended.resume()
/// ```
struct FinishedJobs {
    // A struct rather than a tuple: an optional tuple is handled through run-time metadata.
    private struct Finished {
        let job: RequestJob
        let outcome: RequestJob.Outcome
    }

    private var first: Finished?
    private var more: [Finished] = []

    /// Notes that `job` ended with `outcome`.
    mutating func append(_ job: RequestJob, _ outcome: RequestJob.Outcome) {
        if first == nil {
            first = Finished(job: job, outcome: outcome)
        } else {
            more.append(Finished(job: job, outcome: outcome))
        }
    }

    /// The jobs so far, leaving none.
    mutating func take() -> FinishedJobs {
        guard first != nil else { return FinishedJobs() }
        var taken = FinishedJobs()
        swap(&taken, &self)
        return taken
    }

    /// Resumes each job's task with its outcome.
    func resume() {
        guard let first else { return }
        first.job.finish(first.outcome)
        for finished in more { finished.job.finish(finished.outcome) }
    }
}
