/// Where a feed's prices come from: the random generator or a stream of input lines.
package protocol PriceFeedSource: Sendable {
  /// Yields prices into `sink` until the source runs dry, the sink refuses a value, or the task
  /// is cancelled.
  func produce(into sink: PriceFeedSink) async -> PriceFeedSourceEnd
}

/// How a source's `produce` ended.
package enum PriceFeedSourceEnd: Sendable, Equatable {
  /// The source has no more values (end of input).
  case sourceFinished
  /// It was stopped: its consumer went away or its task was cancelled.
  case stopped
}

/// What the producer did, reported once it has stopped.
package struct PriceFeedReport: Sendable, Equatable {
  package var sourceEnd: PriceFeedSourceEnd
  /// Values offered to the stream.
  package var produced: Int
  /// Values the buffer policy discarded.
  package var dropped: Int
}

/// The seed's `PriceFeed.stream()`, with its producer as a structured child task.
///
/// The seed starts its producer with an unstructured `Task {}` and ties it to the stream with
/// `continuation.onTermination = { _ in producer.cancel() }`, so that the producer stops when the
/// view's `for await` ends. Here the producer is a child of ``run(_:consume:)``'s task group, and
/// the same `onTermination` is what stops it:
///
/// ```
/// run ─┬─ consume(&reader)                 the caller's loop, in the group's own task
///      └─ producer group ─┬─ source.produce(into: sink)
///                         └─ watcher: await termination ─► cancelAll()
/// ```
///
/// `onTermination` fires once, whichever way the stream ends: the consumer returned (`run`
/// then finishes the stream for it, because an `AsyncStream` that something still references
/// never ends by itself), the consumer's task was cancelled inside `next()` (Ctrl-C, SIGTERM, a
/// closed stdout all cancel the root), the stream was dropped, or the source ran dry and
/// finished it. It wakes the
/// watcher, whose group then cancels the producer: a sleep on the clock or a wait for room ends
/// at once. `run` returns only after the producer's group has ended, so when the caller prints
/// `producer_stopped` no value can be produced any more. A cancelled caller needs none of this
/// (cancellation reaches the producer through the tree), but it goes the same way.
package struct PriceFeed: Sendable {
  /// The stream's buffer policy and the unpaced producer's window.
  package let buffer: TickerBuffer

  package init(buffer: TickerBuffer) {
    self.buffer = buffer
  }

  /// Runs `source` as the producer beside `consume` as the consumer.
  ///
  /// - Parameters:
  ///   - source: Produces the prices.
  ///   - limit: The most prices `consume` will read, if it knows: an unpaced producer makes no
  ///     more.
  ///   - consume: Reads prices until it is done; when it returns, the producer is stopped.
  /// - Returns: What `consume` returned, and what the producer did.
  package func run<Consumed>(
    _ source: some PriceFeedSource,
    limit: Int? = nil,
    consume: (inout PriceFeedReader) async -> Consumed
  ) async -> (consumed: Consumed, report: PriceFeedReport) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Double.self, bufferingPolicy: buffer.streamPolicy)
    let gauge = PriceFeedGauge(window: buffer.window, limit: limit)
    let termination = PriceFeedTermination()
    // The seed's `producer.cancel()`, made structured: wake the watcher, which cancels the group.
    continuation.onTermination = { _ in termination.fire() }
    let sink = PriceFeedSink(continuation: continuation, gauge: gauge)

    return await withTaskGroup(of: PriceFeedSourceEnd.self) { group in
      group.addTask {
        await Self.runProducer(source, into: sink, until: termination)
      }
      var reader = PriceFeedReader(stream: stream, gauge: gauge, termination: termination)
      // The reader stops handing out values once this task is cancelled (see
      // ``PriceFeedReader/next()``); one handler for the whole loop, not a check per value.
      let consumed = await withTaskCancellationHandler {
        await consume(&reader)
      } onCancel: {
        termination.consumerCancelled()
      }
      continuation.finish()
      let end = await group.next() ?? .stopped
      return (
        consumed,
        PriceFeedReport(sourceEnd: end, produced: gauge.produced, dropped: gauge.dropped)
      )
    }
  }

  /// The producer beside its watcher; whichever ends first cancels the other.
  static func runProducer(
    _ source: some PriceFeedSource, into sink: PriceFeedSink,
    until termination: PriceFeedTermination
  ) async -> PriceFeedSourceEnd {
    await withTaskGroup(of: PriceFeedSourceEnd?.self) { group in
      group.addTask {
        let end = await source.produce(into: sink)
        sink.gauge.producerStopped()
        // Let the consumer drain what is buffered, then see the end of the stream.
        if end == .sourceFinished { sink.continuation.finish() }
        return end
      }
      group.addTask {
        await termination.wait()
        return nil
      }
      var end = PriceFeedSourceEnd.stopped
      for await result in group {
        if let result { end = result }
        group.cancelAll()
      }
      return end
    }
  }
}
