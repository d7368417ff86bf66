import LoadctlCore
import LoadctlTestKit
import Testing

/// A place the fake geocoding search returns.
private struct Place: Equatable, Identifiable, Sendable {
  var country: String
  var latitude: Double
  var longitude: Double
  var id: Int
  var name: String

  static let mock = [
    Place(
      country: "United States", latitude: 40.6782, longitude: -73.9442, id: 1, name: "Brooklyn"),
    Place(
      country: "United States", latitude: 34.0522, longitude: -118.2437, id: 2,
      name: "Los Angeles"),
    Place(
      country: "United States", latitude: 37.7749, longitude: -122.4194, id: 3,
      name: "San Francisco"),
  ]
  static let special = Place(
    country: "Special Country", latitude: 0, longitude: 0, id: 42, name: "Special Place")
}

/// A daily forecast, as the fake weather client returns it.
private struct Forecast: Equatable, Sendable {
  var days: [Int]
  var temperatureMax: [Double]
  var temperatureMin: [Double]
  var unit: String

  static let mock = Forecast(
    days: [0, 1, 2], temperatureMax: [90, 70, 100], temperatureMin: [70, 50, 80], unit: "°F")
}

private struct WeatherClient: Sendable {
  var search: @Sendable (String) async throws -> [Place] = { _ in
    Issue.record("search was not expected")
    return []
  }
  var forecast: @Sendable (Place) async throws -> Forecast = { _ in
    Issue.record("forecast was not expected")
    return .mock
  }
}

/// TCA's Search example: a location search whose results can be tapped for their forecast.
private struct Search: Sendable {
  struct State: Equatable, Sendable {
    var results: [Place] = []
    var resultForecastRequestInFlight: Place?
    var searchQuery = ""
    var weather: Weather?

    struct Weather: Equatable, Sendable {
      var id: Place.ID
      var days: [Day]

      struct Day: Equatable, Sendable {
        var day: Int
        var temperatureMax: Double
        var temperatureMaxUnit: String
        var temperatureMin: Double
        var temperatureMinUnit: String
      }
    }
  }

  enum Action: Sendable {
    case forecastResponse(Place.ID, Result<Forecast, any Error>)
    case searchQueryChanged(String)
    case searchQueryChangeDebounced
    case searchResponse(Result<[Place], any Error>)
    case searchResultTapped(Place)
  }

  private enum CancelID { case location, weather }

  let client: WeatherClient

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .forecastResponse(_, .failure):
      state.weather = nil
      state.resultForecastRequestInFlight = nil
      return .none
    case .forecastResponse(let id, .success(let forecast)):
      state.weather = State.Weather(
        id: id,
        days: forecast.days.indices.map { index in
          State.Weather.Day(
            day: forecast.days[index], temperatureMax: forecast.temperatureMax[index],
            temperatureMaxUnit: forecast.unit, temperatureMin: forecast.temperatureMin[index],
            temperatureMinUnit: forecast.unit)
        })
      state.resultForecastRequestInFlight = nil
      return .none
    case .searchQueryChanged(let query):
      state.searchQuery = query
      // A cleared query clears the results, and cancels a search still in flight.
      guard !state.searchQuery.isEmpty else {
        state.results = []
        state.weather = nil
        return .cancel(id: CancelID.location)
      }
      return .none
    case .searchQueryChangeDebounced:
      guard !state.searchQuery.isEmpty else { return .none }
      return .run { [query = state.searchQuery, client] send in
        send(.searchResponse(await result { try await client.search(query) }))
      }
      .cancellable(id: CancelID.location)
    case .searchResponse(.failure):
      state.results = []
      return .none
    case .searchResponse(.success(let response)):
      state.results = response
      return .none
    case .searchResultTapped(let location):
      state.resultForecastRequestInFlight = location
      return .run { [client] send in
        send(.forecastResponse(location.id, await result { try await client.forecast(location) }))
      }
      .cancellable(id: CancelID.weather, policy: .replace)
    }
  }
}

private func makeStore(
  _ state: Search.State = Search.State(), clock: VirtualClock = VirtualClock(),
  client: WeatherClient
) -> TestStore<Search.State, Search.Action> {
  TestStore(initialState: state, clock: clock) {
    Search(client: client).reduce(into: &$0, action: $1)
  }
}

private func isSearchSuccess(_ action: Search.Action) -> Bool {
  if case .searchResponse(.success) = action { true } else { false }
}

private func isSearchFailure(_ action: Search.Action) -> Bool {
  if case .searchResponse(.failure) = action { true } else { false }
}

private func isForecast(_ action: Search.Action) -> Bool {
  if case .forecastResponse = action { true } else { false }
}

/// The weather `Forecast.mock` gives for place `id`.
private func mockWeather(id: Int) -> Search.State.Weather {
  Search.State.Weather(
    id: id,
    days: [
      .init(
        day: 0, temperatureMax: 90, temperatureMaxUnit: "°F", temperatureMin: 70,
        temperatureMinUnit: "°F"),
      .init(
        day: 1, temperatureMax: 70, temperatureMaxUnit: "°F", temperatureMin: 50,
        temperatureMinUnit: "°F"),
      .init(
        day: 2, temperatureMax: 100, temperatureMaxUnit: "°F", temperatureMin: 80,
        temperatureMinUnit: "°F"),
    ])
}

@Suite struct SearchTests {
  @Test func searchAndClearQuery() {
    let store = makeStore(client: WeatherClient(search: { _ in Place.mock }))
    store.send(.searchQueryChanged("S")) { $0.searchQuery = "S" }
    store.send(.searchQueryChangeDebounced)
    store.receive(isSearchSuccess) { $0.results = Place.mock }
    store.send(.searchQueryChanged("")) {
      $0.results = []
      $0.searchQuery = ""
    }
  }

  @Test func searchFailure() {
    let store = makeStore(client: WeatherClient(search: { _ in throw SomethingWentWrong() }))
    store.send(.searchQueryChanged("S")) { $0.searchQuery = "S" }
    store.send(.searchQueryChangeDebounced)
    store.receive(isSearchFailure)
  }

  @Test func clearQueryCancelsInFlightSearchRequest() {
    let store = makeStore(client: WeatherClient(search: { _ in Place.mock }))
    let searchQueryChanged = store.send(.searchQueryChanged("S")) { $0.searchQuery = "S" }
    searchQueryChanged.cancel()
    store.send(.searchQueryChanged("")) { $0.searchQuery = "" }
  }

  @Test func tapOnLocation() {
    let store = makeStore(
      Search.State(results: Place.mock + [Place.special]),
      client: WeatherClient(forecast: { _ in .mock }))
    store.send(.searchResultTapped(Place.special)) {
      $0.resultForecastRequestInFlight = Place.special
    }
    store.receive(isForecast) {
      $0.resultForecastRequestInFlight = nil
      $0.weather = mockWeather(id: 42)
    }
  }

  /// The fake's zero-length sleep waits for the clock, as under TCA's `TestClock`, so the second
  /// tap cancels the first request before it answers.
  @Test func tapOnLocationCancelsInFlightRequest() {
    let clock = VirtualClock()
    let store = makeStore(
      Search.State(results: Place.mock + [Place.special]), clock: clock,
      client: WeatherClient(forecast: { _ in
        try await clock.sleep(for: .seconds(0))
        return .mock
      }))
    store.send(.searchResultTapped(Place.mock[0])) {
      $0.resultForecastRequestInFlight = Place.mock[0]
    }
    store.send(.searchResultTapped(Place.special)) {
      $0.resultForecastRequestInFlight = Place.special
    }
    clock.advance()
    store.receive(isForecast) {
      $0.resultForecastRequestInFlight = nil
      $0.weather = mockWeather(id: 42)
    }
  }

  @Test func tapOnLocationFailure() {
    let store = makeStore(
      Search.State(results: Place.mock),
      client: WeatherClient(forecast: { _ in throw SomethingWentWrong() }))
    store.send(.searchResultTapped(Place.mock[0])) {
      $0.resultForecastRequestInFlight = Place.mock[0]
    }
    store.receive(isForecast) { $0.resultForecastRequestInFlight = nil }
  }
}
