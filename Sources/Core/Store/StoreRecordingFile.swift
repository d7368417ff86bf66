import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A happening of a recorded run and when it was applied: one line of a recording file.
///
/// Encoded as one flat object: `t`, the time since the run began in integer nanoseconds, beside
/// the happening's own members (see ``StoreRecordingFile``).
public struct RecordedHappening<Action: Sendable>: Sendable {
  /// When it was applied, since the run began, on the run's clock.
  public var time: Duration
  /// What was applied.
  public var happening: StoreHappening<Action>

  /// Pairs `happening` with the time it was applied at.
  public init(time: Duration, _ happening: StoreHappening<Action>) {
    (self.time, self.happening) = (time, happening)
  }
}

extension RecordedHappening: Equatable where Action: Equatable {}

private enum TimeKey: String, CodingKey { case t }

extension RecordedHappening: Encodable where Action: Encodable {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: TimeKey.self)
    let (seconds, attoseconds) = time.components
    try container.encode(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, forKey: .t)
    try happening.encode(to: encoder)
  }
}

extension RecordedHappening: Decodable where Action: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: TimeKey.self)
    time = .nanoseconds(try container.decode(Int64.self, forKey: .t))
    happening = try StoreHappening(from: decoder)
  }
}

/// The members of a happening's object, as loadctl's `--record` names them.
private enum HappeningKey: String, CodingKey {
  case input, effect, action, finished, cancelled
  case inputFinished = "input_finished"
  case cancelRequest = "cancel_request"
}

/// A happening is an object with one of `input`, `input_finished`, `effect` (with `action` or
/// `finished`), `cancel_request` or `cancelled`. An effect id is written as its
/// ``EffectID/name`` and read back as an id of that name (see ``StoreReplay``).
extension StoreHappening: Encodable where Action: Encodable {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HappeningKey.self)
    switch self {
    case .input(let action): try container.encode(action, forKey: .input)
    case .inputFinished: try container.encode(true, forKey: .inputFinished)
    case .effectAction(let action, let serial):
      try container.encode(serial, forKey: .effect)
      try container.encode(action, forKey: .action)
    case .effectFinished(let serial, let outcome):
      try container.encode(serial, forKey: .effect)
      try container.encode(outcome, forKey: .finished)
    case .cancelRequest(let id): try container.encode(id.name, forKey: .cancelRequest)
    case .cancelled: try container.encode(true, forKey: .cancelled)
    }
  }
}

extension StoreHappening: Decodable where Action: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HappeningKey.self)
    func flag(_ key: HappeningKey) throws -> Bool {
      guard container.contains(key) else { return false }
      guard try container.decode(Bool.self, forKey: key) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container, debugDescription: "'\(key.stringValue)' must be true")
      }
      return true
    }
    if container.contains(.input) {
      self = .input(try container.decode(Action.self, forKey: .input))
    } else if try flag(.inputFinished) {
      self = .inputFinished
    } else if try flag(.cancelled) {
      self = .cancelled
    } else if container.contains(.cancelRequest) {
      self = .cancelRequest(EffectID(try container.decode(String.self, forKey: .cancelRequest)))
    } else if container.contains(.effect) {
      let serial = try container.decode(Int.self, forKey: .effect)
      switch (container.contains(.action), container.contains(.finished)) {
      case (true, false):
        self = .effectAction(try container.decode(Action.self, forKey: .action), serial: serial)
      case (false, true):
        self = .effectFinished(
          serial: serial, try container.decode(EffectOutcome.self, forKey: .finished))
      default:
        throw DecodingError.dataCorruptedError(
          forKey: .effect, in: container,
          debugDescription: "effect \(serial) needs exactly one of 'action' and 'finished'")
      }
    } else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription:
            "not a happening: none of input, input_finished, effect, cancel_request, cancelled"))
    }
  }
}

/// `"finished"`, `"cancelled"`, or `{"failed": MESSAGE}`.
extension EffectOutcome: Codable {
  private enum Key: String, CodingKey { case failed }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .finished, .cancelled:
      var container = encoder.singleValueContainer()
      try container.encode(name)
    case .failed(let message):
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(message, forKey: .failed)
    }
  }

  public init(from decoder: any Decoder) throws {
    if let name = try? decoder.singleValueContainer().decode(String.self) {
      switch name {
      case "finished": self = .finished
      case "cancelled": self = .cancelled
      default:
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: decoder.codingPath,
            debugDescription: "an effect's end is finished, cancelled or {\"failed\": …}"))
      }
    } else {
      self = .failed(try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .failed))
    }
  }
}

/// Why a recording could not be written or read: the file, the line when there is one, and the
/// problem.
public struct StoreRecordingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line of the recording at fault (the header is line 1), if the problem is in one.
  public let line: Int?
  /// What went wrong, with the file's path.
  public let description: String

  init(_ path: String, line: Int? = nil, _ problem: String) {
    self.line = line
    description = "recording '\(path)'\(line.map { ", line \($0)" } ?? ""): \(problem)"
  }

  /// The failure of a system call that just set `errno`.
  static func system(_ path: String, _ doing: String) -> StoreRecordingError {
    StoreRecordingError(path, "cannot \(doing): \(String(cString: strerror(errno)))")
  }
}

/// The recording file format: JSON Lines, a header line, then one ``RecordedHappening`` per line.
///
/// ```json
/// {"loadctl_store_recording":1}
/// {"t":41000,"input":{"increment":{}}}
/// {"t":100093000,"effect":1,"action":{"saved":{"_0":1}}}
/// {"t":100112000,"effect":1,"finished":"finished"}
/// ```
///
/// The header is exactly ``header``. A happening's line is its ``RecordedHappening`` encoded as
/// one JSON object; its actions are encoded as the action type's `Codable` conformance encodes
/// them. ``StoreFileJournal`` writes such a file from a run, and ``read(atPath:decode:)`` reads
/// one back, for ``StoreReplay`` or `LoadctlTestKit`'s `TestStore.replay`. LoadctlCore has no
/// JSON encoder of its own: the caller passes one (Foundation's `JSONEncoder` and
/// `JSONDecoder` do).
public enum StoreRecordingFile {
  /// The format's version, in the header; a reader refuses a later one.
  public static let formatVersion = 1

  /// The first line of every recording of this format.
  public static var header: String { "{\"loadctl_store_recording\":\(formatVersion)}" }

  /// Reads the happenings of the recording at `path`, each line decoded by `decode`.
  ///
  /// Blank lines are skipped, and a last line without its line break (cut short by a crash
  /// while it was written) is not read.
  /// - Throws: ``StoreRecordingError`` when the file cannot be read, has no header, is of a
  ///   later format, or has a line `decode` refuses or a time before the line above's.
  public static func read<Action>(
    atPath path: String, decode: ([UInt8]) throws -> RecordedHappening<Action>
  ) throws(StoreRecordingError) -> [RecordedHappening<Action>] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .system(path, "open it") }
    defer { closeFile(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { readFile(fd, $0) }
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else { throw .system(path, "read it") }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    return try parse(bytes, path: path, decode: decode)
  }

  static func parse<Action>(
    _ bytes: [UInt8], path: String, decode: ([UInt8]) throws -> RecordedHappening<Action>
  ) throws(StoreRecordingError) -> [RecordedHappening<Action>] {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    lines.removeLast()  // after the last line break: empty, or a line cut short
    guard let first = lines.first else { throw StoreRecordingError(path, "it is empty") }
    let header = first.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }
    let prefix = Array("{\"loadctl_store_recording\":".utf8)
    guard header.starts(with: prefix), header.last == UInt8(ascii: "}"),
      let version = Int(String(decoding: header.dropFirst(prefix.count).dropLast(), as: UTF8.self))
    else {
      throw StoreRecordingError(path, line: 1, "not a store recording (no \(Self.header) header)")
    }
    guard version <= formatVersion else {
      throw StoreRecordingError(
        path, line: 1, "format \(version) is later than this LoadctlCore reads (\(formatVersion))")
    }
    var happenings: [RecordedHappening<Action>] = []
    for (index, line) in lines.enumerated().dropFirst()
    where line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) {
      let happening: RecordedHappening<Action>
      do {
        happening = try decode(Array(line))
      } catch {
        throw StoreRecordingError(path, line: index + 1, "\(error)")
      }
      if let last = happenings.last, happening.time < last.time {
        throw StoreRecordingError(
          path, line: index + 1, "its time \(happening.time) is before the line above's")
      }
      happenings.append(happening)
    }
    return happenings
  }
}

/// A journal that writes a run's happenings to a file as they are applied, in the
/// ``StoreRecordingFile`` format, each stamped with its time on the run's clock.
///
/// Each happening is encoded by `encode` and written at once, a line at a time, so the file
/// holds every happening applied before a crash. A failed write is reported by ``close()``.
///
/// ```swift
/// import Foundation
///
/// let journal = try StoreFileJournal<Counter.Action>(path: "run.jsonl", clock: clock) {
///   try Array(JSONEncoder().encode($0))
/// }
/// _ = await store.run(inputs: inputs, journal: journal) { _ in }
/// try journal.close()
/// ```
public final class StoreFileJournal<Action: Encodable & Sendable>: StoreJournal {
  /// Encodes one line, as one JSON object with no line break in it.
  public typealias Encode = @Sendable (RecordedHappening<Action>) throws -> [UInt8]

  private struct File: ~Copyable {
    var fd: Int32
    var error: StoreRecordingError?
  }

  private let path: String
  private let clock: ErasedClock
  private let encode: Encode
  private let file: Mutex<File>

  /// Creates (or empties) the file at `path`, with mode `0600`, and writes the header.
  ///
  /// - Parameters:
  ///   - path: Where to write the recording.
  ///   - clock: The run's clock; a happening's time is measured from now on it.
  ///   - encode: Encodes a line (a JSON encoder without pretty printing).
  /// - Throws: ``StoreRecordingError`` when the file cannot be created or written.
  public init(
    path: String, clock: some Clock<Duration>, encode: @escaping Encode
  ) throws(StoreRecordingError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw .system(path, "create it") }
    (self.path, self.clock, self.encode) = (path, ErasedClock(clock), encode)
    file = Mutex(File(fd: fd))
    try file.withLock { (file) throws(StoreRecordingError) in
      try Self.write(Array((StoreRecordingFile.header + "\n").utf8), to: file.fd, path: path)
    }
  }

  deinit {
    file.withLock { file in
      if file.fd >= 0 { closeFile(file.fd) }
    }
  }

  public func record(_ happening: StoreHappening<Action>, step: () -> Void) {
    let line = RecordedHappening(time: clock.now.offset, happening)
    file.withLock { file in
      guard file.error == nil, file.fd >= 0 else { return }
      do throws(StoreRecordingError) {
        var bytes: [UInt8]
        do {
          bytes = try encode(line)
        } catch {
          throw StoreRecordingError(path, "cannot encode \(happening): \(error)")
        }
        guard !bytes.contains(UInt8(ascii: "\n")) else {
          throw StoreRecordingError(path, "the encoder wrote a line break (pretty printing?)")
        }
        bytes.append(UInt8(ascii: "\n"))
        try Self.write(bytes, to: file.fd, path: path)
      } catch {
        file.error = error
      }
    }
    step()
  }

  /// Closes the file.
  /// - Throws: The first ``StoreRecordingError`` of the run: a line that could not be encoded
  ///   or written (the lines after it were not written), or the close failing.
  public func close() throws(StoreRecordingError) {
    try file.withLock { (file) throws(StoreRecordingError) in
      guard file.fd >= 0 else { return }
      defer { file.fd = -1 }
      if let error = file.error { throw error }
      guard closeFile(file.fd) == 0 else { throw .system(path, "close it") }
    }
  }

  private static func write(
    _ bytes: [UInt8], to fd: Int32, path: String
  ) throws(StoreRecordingError) {
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { writeFile(fd, $0) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { throw .system(path, "write it") }
      written += count
    }
  }
}

// The system calls, by names no method here shadows.
@discardableResult private func closeFile(_ fd: Int32) -> Int32 { close(fd) }
private func readFile(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
  read(fd, buffer.baseAddress, buffer.count)
}
private func writeFile(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
  write(fd, buffer.baseAddress, buffer.count)
}
