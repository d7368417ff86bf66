extension SearchCorpus {
  /// Real Swift, concurrency, Foundation, Observation and SwiftUI API names, separated by
  /// whitespace: what a person exploring debounced search would type into a documentation box.
  static let builtInNames = """
    Swift.print Swift.debugPrint Swift.dump Swift.readLine Swift.min Swift.max Swift.abs Swift.swap
    Swift.zip Swift.stride(from:to:by:) Swift.stride(from:through:by:) Swift.sequence(first:next:)
    Swift.repeatElement(_:count:) Swift.assert Swift.precondition Swift.preconditionFailure
    Swift.assertionFailure Swift.fatalError Swift.withExtendedLifetime
    Swift.withUnsafePointer(to:_:) Swift.withUnsafeMutablePointer(to:_:) Swift.type(of:)
    Swift.MemoryLayout Swift.ObjectIdentifier Swift.unsafeBitCast Array Array.append(_:)
    Array.append(contentsOf:) Array.insert(_:at:) Array.remove(at:) Array.removeAll(where:)
    Array.reserveCapacity(_:) Array.sort() Array.sorted(by:) Array.reversed() Array.firstIndex(of:)
    Array.contains(_:) Array.filter(_:) Array.map(_:) Array.compactMap(_:) Array.flatMap(_:)
    Array.reduce(_:_:) Array.reduce(into:_:) Array.forEach(_:) Array.enumerated()
    Array.joined(separator:) Array.prefix(_:) Array.suffix(_:) Array.dropFirst(_:)
    Array.dropLast(_:) Array.split(separator:) Array.partition(by:) Array.shuffled()
    Array.randomElement() Array.swapAt(_:_:) ArraySlice ContiguousArray Dictionary
    Dictionary.init(grouping:by:) Dictionary.init(uniqueKeysWithValues:) Dictionary.mapValues(_:)
    Dictionary.merge(_:uniquingKeysWith:) Dictionary.removeValue(forKey:)
    Dictionary.updateValue(_:forKey:) Dictionary.keys Dictionary.values Set Set.insert(_:)
    Set.union(_:) Set.intersection(_:) Set.subtracting(_:) Set.isSubset(of:) String String.count
    String.isEmpty String.hasPrefix(_:) String.hasSuffix(_:) String.lowercased() String.uppercased()
    String.split(separator:) String.components(separatedBy:) String.contains(_:)
    String.replacingOccurrences(of:with:) String.trimmingCharacters(in:) String.utf8 String.utf16
    String.unicodeScalars String.Index String.init(describing:) String.init(format:_:)
    String.init(decoding:as:) String.init(validating:as:) Substring Character Unicode.Scalar
    StaticString Int Int8 Int16 Int32 Int64 Int128 UInt UInt8 UInt16 UInt32 UInt64 UInt128 Double
    Float Float16 Bool Optional Optional.map(_:) Optional.flatMap(_:) Optional.none Result
    Result.get() Result.map(_:) Result.mapError(_:) Never Void Range ClosedRange PartialRangeFrom
    KeyPath WritableKeyPath ReferenceWritableKeyPath AnyHashable AnyObject Sequence Collection
    BidirectionalCollection RandomAccessCollection MutableCollection RangeReplaceableCollection
    IteratorProtocol LazySequence Comparable Equatable Hashable Hasher Identifiable Codable
    Encodable Decodable Encoder Decoder CodingKey Error CustomStringConvertible
    CustomDebugStringConvertible ExpressibleByStringLiteral ExpressibleByArrayLiteral
    ExpressibleByIntegerLiteral CaseIterable RawRepresentable OptionSet Numeric BinaryInteger
    FixedWidthInteger FloatingPoint SIMD2 SIMD4 RandomNumberGenerator SystemRandomNumberGenerator
    UnsafePointer UnsafeMutablePointer UnsafeRawPointer UnsafeBufferPointer
    UnsafeMutableBufferPointer ManagedBuffer Task Task.init(priority:operation:)
    Task.detached(priority:operation:) Task.sleep(for:) Task.sleep(nanoseconds:)
    Task.sleep(until:tolerance:clock:) Task.yield() Task.cancel() Task.isCancelled
    Task.checkCancellation() Task.value Task.result Task.currentPriority TaskGroup
    TaskGroup.addTask(priority:operation:) TaskGroup.next() TaskGroup.cancelAll()
    TaskGroup.waitForAll() ThrowingTaskGroup DiscardingTaskGroup ThrowingDiscardingTaskGroup
    TaskPriority TaskLocal UnsafeCurrentTask CancellationError withTaskGroup(of:returning:body:)
    withThrowingTaskGroup(of:returning:body:) withDiscardingTaskGroup(returning:body:)
    withThrowingDiscardingTaskGroup(returning:body:)
    withTaskCancellationHandler(operation:onCancel:) withTaskPriorityEscalationHandler
    withCheckedContinuation(_:) withCheckedThrowingContinuation(_:) withUnsafeContinuation(_:)
    withUnsafeThrowingContinuation(_:) CheckedContinuation CheckedContinuation.resume(returning:)
    CheckedContinuation.resume(throwing:) UnsafeContinuation AsyncSequence AsyncIteratorProtocol
    AsyncStream AsyncStream.makeStream(of:bufferingPolicy:) AsyncStream.Continuation
    AsyncStream.Continuation.yield(_:) AsyncStream.Continuation.finish()
    AsyncStream.Continuation.onTermination AsyncStream.Continuation.BufferingPolicy
    AsyncThrowingStream AsyncThrowingStream.Continuation AsyncMapSequence AsyncFilterSequence
    AsyncPrefixSequence AsyncDropFirstSequence Actor AnyActor MainActor MainActor.run(body:)
    MainActor.assumeIsolated(_:) GlobalActor Sendable SendableMetatype TaskExecutor SerialExecutor
    ExecutorJob UnownedJob UnownedSerialExecutor withTaskExecutorPreference(_:operation:) Clock
    Clock.sleep(for:tolerance:) Clock.measure(_:) InstantProtocol ContinuousClock SuspendingClock
    Duration Duration.seconds(_:) Duration.milliseconds(_:) Duration.microseconds(_:)
    Duration.nanoseconds(_:) Duration.components Mutex Mutex.withLock(_:) Atomic
    Atomic.load(ordering:) Atomic.store(_:ordering:)
    Atomic.compareExchange(expected:desired:ordering:) Observable Observation.Observable
    ObservationIgnored ObservationTracked withObservationTracking(_:onChange:) Observations
    ObservationRegistrar Foundation.URL URL.init(string:) URL.appending(path:)
    URL.appending(queryItems:) URLComponents URLQueryItem URLRequest URLRequest.httpMethod
    URLResponse HTTPURLResponse URLSession URLSession.shared URLSession.data(from:)
    URLSession.data(for:) URLSession.bytes(from:) URLSession.download(from:)
    URLSession.upload(for:from:) URLSessionConfiguration URLSessionTask URLSessionDataTask URLError
    URLError.cancelled URLError.timedOut URLCache JSONEncoder JSONEncoder.encode(_:) JSONDecoder
    JSONDecoder.decode(_:from:) JSONDecoder.keyDecodingStrategy JSONSerialization
    PropertyListEncoder PropertyListDecoder Data Data.init(contentsOf:) Data.write(to:) Date
    Date.now DateFormatter ISO8601DateFormatter DateComponents Calendar TimeZone Locale
    NumberFormatter Measurement UUID FileManager FileManager.default ProcessInfo Bundle Bundle.main
    UserDefaults NotificationCenter NotificationCenter.notifications(named:object:) Notification
    Timer RunLoop OperationQueue DispatchQueue DispatchQueue.main DispatchQueue.global(qos:)
    DispatchGroup DispatchSemaphore DispatchSource AttributedString NSRegularExpression Regex
    Regex.wholeMatch(in:) Regex.firstMatch(in:) FormatStyle Date.FormatStyle IntegerFormatStyle
    Combine.Publisher AnyPublisher PassthroughSubject CurrentValueSubject AnyCancellable Just Future
    Deferred Publishers.Debounce Publisher.debounce(for:scheduler:options:)
    Publisher.throttle(for:scheduler:latest:) Publisher.removeDuplicates()
    Publisher.sink(receiveValue:) Publisher.receive(on:options:) Publisher.map(_:)
    Publisher.switchToLatest() Publisher.values Published ObservableObject
    ObservableObject.objectWillChange SwiftUI.View SwiftUI.App SwiftUI.Scene WindowGroup Window
    Settings DocumentGroup MenuBarExtra Text Text.init(_:format:) Image Image.init(systemName:)
    Label Button Button.init(role:action:label:) Link ShareLink Toggle Picker DatePicker ColorPicker
    Slider Stepper TextField SecureField TextEditor ProgressView Gauge Menu ControlGroup EditButton
    PasteButton RenameButton LabeledContent ContentUnavailableView ContentUnavailableView.search
    AsyncImage EmptyView AnyView Group GroupBox DisclosureGroup OutlineGroup Form Section List
    List.init(selection:content:) ForEach Table TableColumn VStack HStack ZStack LazyVStack
    LazyHStack LazyVGrid LazyHGrid GridItem Grid GridRow Spacer Divider ScrollView ScrollViewReader
    ScrollViewProxy GeometryReader GeometryProxy ViewThatFits Layout AnyLayout Canvas TimelineView
    NavigationStack NavigationSplitView NavigationLink NavigationPath TabView Tab Color Gradient
    LinearGradient RadialGradient AngularGradient Material Font Font.Weight Shape Circle Rectangle
    RoundedRectangle Capsule Ellipse Path UnevenRoundedRectangle State Binding Bindable Environment
    EnvironmentValues EnvironmentObject ObservedObject StateObject AppStorage SceneStorage
    FocusState FocusedValue GestureState Namespace ScaledMetric ViewBuilder SceneBuilder
    ToolbarContentBuilder ViewModifier EnvironmentKey PreferenceKey Animation
    Animation.spring(duration:bounce:) Animation.easeInOut(duration:) Transaction
    withAnimation(_:_:) AnyTransition DragGesture TapGesture LongPressGesture MagnifyGesture
    RotateGesture SpatialTapGesture ToolbarItem ToolbarItemGroup SearchFieldPlacement
    SearchSuggestionsPlacement EnvironmentValues.isSearching EnvironmentValues.dismissSearch
    EnvironmentValues.dismiss EnvironmentValues.openURL EnvironmentValues.colorScheme
    EnvironmentValues.scenePhase ScenePhase View.task(priority:_:) View.task(id:priority:_:)
    View.onAppear(perform:) View.onDisappear(perform:) View.onChange(of:initial:_:)
    View.onReceive(_:perform:) View.onSubmit(of:_:) View.searchable(text:placement:prompt:)
    View.searchSuggestions(_:) View.searchScopes(_:scopes:) View.refreshable(action:)
    View.sheet(isPresented:content:) View.sheet(item:content:)
    View.fullScreenCover(isPresented:content:) View.popover(isPresented:content:)
    View.alert(_:isPresented:actions:) View.confirmationDialog(_:isPresented:actions:)
    View.navigationTitle(_:) View.navigationDestination(for:destination:) View.toolbar(content:)
    View.padding(_:) View.frame(width:height:alignment:) View.frame(maxWidth:maxHeight:)
    View.background(_:alignment:) View.overlay(alignment:content:) View.foregroundStyle(_:)
    View.font(_:) View.bold() View.opacity(_:) View.disabled(_:) View.hidden()
    View.redacted(reason:) View.animation(_:value:) View.transition(_:) View.contentTransition(_:)
    View.onTapGesture(count:perform:) View.gesture(_:) View.simultaneousGesture(_:)
    View.environment(_:_:) View.environmentObject(_:) View.modifier(_:) View.id(_:) View.tag(_:)
    View.tint(_:) View.clipShape(_:style:) View.shadow(color:radius:x:y:) View.offset(x:y:)
    View.rotationEffect(_:anchor:) View.scaleEffect(_:anchor:) View.blur(radius:opaque:)
    View.ignoresSafeArea(_:edges:) View.safeAreaInset(edge:alignment:spacing:content:)
    View.listStyle(_:) View.buttonStyle(_:) View.pickerStyle(_:) View.textFieldStyle(_:)
    View.labelStyle(_:) View.focused(_:) View.keyboardShortcut(_:modifiers:) View.contentShape(_:)
    View.matchedGeometryEffect(id:in:) View.accessibilityLabel(_:) View.accessibilityHint(_:)
    View.preference(key:value:) View.onPreferenceChange(_:perform:) View.scrollPosition(id:anchor:)
    View.scrollTargetBehavior(_:) View.containerRelativeFrame(_:) View.sensoryFeedback(_:trigger:)
    View.phaseAnimator(_:content:animation:)
    View.keyframeAnimator(initialValue:trigger:content:keyframes:)
    View.inspector(isPresented:content:)
    View.fileImporter(isPresented:allowedContentTypes:onCompletion:)
    View.dropDestination(for:action:isTargeted:) View.draggable(_:) View.contextMenu(menuItems:)
    View.swipeActions(edge:allowsFullSwipe:content:) View.listRowBackground(_:) View.badge(_:)
    View.help(_:) View.onHover(perform:) View.onKeyPress(_:action:)
    View.onGeometryChange(for:of:action:) View.onScrollGeometryChange(for:of:action:)
    SwiftData.Model ModelContainer ModelContext Query FetchDescriptor SortDescriptor Predicate
    Attribute Relationship View.modelContainer(for:)
    """
}
