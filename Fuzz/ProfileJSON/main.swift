// libFuzzer entry point for reading a profile: `JSONParser.parse(bytes:)` then `Profile.decode`.
//
// Any bytes must give a value or a `Failure` with an offset inside the input. A value must
// survive a round trip (`parse(value.serialized) == value`, and serializing again gives the
// same text), the text parser must agree with the bytes parser on valid UTF-8, and a decoded
// profile must carry the object's string `name` and render its summary; an object with a string
// `name` and no key given twice is always decoded.

import LoadctlCore

/// Called by libFuzzer once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfileJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let value: JSONValue
  do throws(JSONParser.Failure) {
    value = try JSONParser.parse(bytes: bytes)
  } catch {
    check(error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) outside")
    check(!error.reason.isEmpty, "failure without a reason")
    if let text = String(validating: bytes, as: UTF8.self) {
      check((try? JSONParser.parse(text)) == nil, "text parser accepts what bytes parser refused")
    }
    return 0
  }
  checkRoundTrip(value)
  if let text = String(validating: bytes, as: UTF8.self) {
    check((try? JSONParser.parse(text)) == value, "text parser disagrees with bytes parser")
  }
  do throws(LoadFailure) {
    let profile = try Profile.decode(value)
    check(value["name"] == .string(profile.name), "profile name is not the object's name")
    check(profile.fields == value, "profile fields differ from the object")
    // Bytes, not Characters: a value starting with a combining mark merges with the space.
    let summary = profile.summary
    check(summary.utf8.firstRange(of: "name: ".utf8) != nil, "summary without name: \(summary)")
  } catch {
    check(!error.message.isEmpty, "decode failure without a message")
    // The only object with a string name a profile refuses is one that gives a key twice.
    if case .object(let pairs) = value, case .string? = value["name"],
      Set(pairs.map(\.0)).count == pairs.count
    {
      fatalError("refused an object with a string name: \(value.serialized)")
    }
  }
  return 0
}

private func checkRoundTrip(_ value: JSONValue) {
  let text = value.serialized
  let again: JSONValue
  do throws(JSONParser.Failure) {
    again = try JSONParser.parse(text)
  } catch {
    fatalError("serialized value does not parse (\(error)): \(text)")
  }
  check(again == value, "round trip changed the value: \(text) → \(again.serialized)")
  check(again.serialized == text, "serializing twice differs: \(text)")
}

/// Stops the run with a message libFuzzer records as a crash, with its input saved.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("invariant broken: \(message())") }
}
