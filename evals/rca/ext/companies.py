"""The companies of the outside-vocabulary incidents: fleets, catalogs, house styles.

- Tidewater Freight (logistics; Go and Java, Alertmanager, conventional commits),
- Fernbank Pay (card issuing and ledger; Java/Kotlin and Python, Datadog, JIRA-keyed commits),
- Bramblewood Games (online game studio; Go and Node, Grafana, ``[area]`` commits),
- Corvid Media (video streaming; Python, Go and Java, a generic webhook, ``(#PR)`` commits);

and three added while tuning (their incidents are in the tune split only): Larkspur Health
(telehealth and e-prescriptions), Osprey Energy (smart meters, EV charging) and Marigold Learning
(courses, quizzes, school sign-on); and two added by a second examiner, tune split only:
Juniper Stays (hotel chain: reservations, rates, OTA channel sync, folios, key cards) and
Thornfield Agritech (soil sensors over LoRaWAN, irrigation control, yield models); and two added
by a third examiner, tune split only: Halyard Regional Transit (fares, vehicle location, GTFS-realtime,
stop signs) and Saltmarsh Mobile (mobile operator: provisioning, CDR rating, number porting, SMS);
and two added by a fourth examiner, tune split only: Basketrun Grocery (online grocery delivery
marketplace: carts, store assignment, delivery slots, shopper picking, partner stock feeds; Ruby,
Elixir, Rust, Node, Python, Go) and Quayside Claims (B2B insurance claims platform: claim intake,
first notice of loss, policy and bordereaux lookups, OCR, fraud scoring, payouts; C#/.NET, PHP,
Python, Java, Node); and two added by a seventh examiner, tune split only (`tune7.py`): Cairnline
Mountain Resorts (ski resorts: lift-gate scans, season and alliance passes, snowmaking, rentals)
and Redhaven Port Authority (container port: EDIFACT with shipping lines, truck appointments and
gate OCR, customs releases, reefers, berths); and two added by an eighth examiner, held-out split
only (`heldout8.py`): Kestrel Regional Air (crew rostering, duty and rest legality, the nightly pairing solve, ACARS
downlinks, layover hotels; Kotlin, Scala, Python, Go, TypeScript) and Cobblegate City Parking (a
municipal parking operator: pay-by-phone sessions, resident permits, ANPR enforcement, penalty
charge notices, bay sensors; Python, PHP, Rust, Java, Kotlin, Go, Elixir); two added by a
ninth examiner, tune split only (`tune9.py`): Skerrylight Ground Network (satellite ground
stations: contact planning, element sets, antenna control, frame sync, payload delivery; Python,
Go, Rust, Java, Node, Elixir) and Proscenium Box Office (theatre ticketing: seat maps, seat holds,
checkout, the on-sale waiting room, dynamic pricing, e-tickets, door scanners; Go, Java, Ruby,
Node, Python, PHP, Elixir); and two added by a tenth
examiner, held-out split only (`heldout10.py`): Ashcombe Waterways (an inland waterway operator:
lock passages and chamber fitting, AIS, gate commands to lock PLCs, pound level gauges, licences
and tolls, Notices to Skippers; Java, TypeScript, Go, Python, Rust, Ruby, Elixir) and Quillstone
Press (a print-on-demand book manufacturer: retailer orders, ONIX metadata, PDF preflight,
imposition and spine widths, press hot folders, carrier labels; C#, Java, Python, Go, Kotlin, PHP,
Node).
"""

from __future__ import annotations

import random

from evals.rca.ext.base import Company, Svc


def _conventional(r: random.Random, text: str) -> str:
    kind = (
        "chore"
        if text.lower().startswith(("bump", "chore"))
        else r.choice(["chore", "docs", "test", "ci"])
    )
    text = text.split(": ", 1)[-1]
    return f"{kind}: {text[0].lower()}{text[1:]}"


def _jira(r: random.Random, text: str) -> str:
    return f"{r.choice(['LEDG', 'CARD', 'PLAT', 'RISK'])}-{r.randint(1100, 2900)} {text.split(': ', 1)[-1].capitalize()}"


def _bracket(r: random.Random, text: str) -> str:
    return (
        f"[{r.choice(['infra', 'tools', 'docs', 'tests'])}] {text.split(': ', 1)[-1].capitalize()}"
    )


def _pr(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    return f"{body[0].upper()}{body[1:]} (#{r.randint(3100, 5200)})"


TIDEWATER = Company(
    name="Tidewater Freight",
    domain="tidewater.example",
    services=[
        Svc(
            "dispatch-api",
            "api",
            ("/v2/loads", "/v2/loads/{id}/tender", "/v2/drivers/{id}/hos"),
            topic="dispatch",
            rps=60,
            p99=220,
            noun="load",
        ),
        Svc(
            "route-planner",
            "api",
            ("/plan", "/plan/{id}/legs"),
            topic="routing",
            rps=35,
            p99=480,
            noun="route",
        ),
        Svc("tracking-ingest", "worker", topic="telemetry.pings", rps=420, p99=90, noun="ping"),
        Svc(
            "carrier-gateway",
            "api",
            ("/carriers/{scac}/tender", "/carriers/{scac}/status"),
            topic="partners",
            rps=22,
            p99=900,
            noun="tender",
        ),
        Svc(
            "yard-svc",
            "api",
            ("/yards/{id}/moves", "/yards/{id}/doors"),
            topic="yard",
            rps=18,
            p99=150,
            noun="move",
        ),
        Svc("eta-predictor", "worker", topic="eta.requests", rps=90, p99=300, noun="eta"),
        Svc(
            "shipper-portal",
            "web",
            ("/shipments", "/shipments/{id}", "/quotes"),
            topic="portal",
            rps=45,
            p99=600,
            noun="shipment",
        ),
    ],
    catalog={
        "dispatch-api": "load tendering, driver assignment, hours-of-service checks (team Dispatch; Go); PostgreSQL fleetdb; calls route-planner and carrier-gateway",
        "route-planner": "lane and leg planning (team Routing; Java 21, Spring Boot); calls the MapGrid geocoding API (api.mapgrid.example)",
        "tracking-ingest": "ELD and geofence pings from trucks (team Telematics; Java); consumes telemetry.pings on tw-kafka; writes fleetdb",
        "carrier-gateway": "EDI 204/990/214 exchange with partner carriers (team Partners; Go); HTTPS to each carrier's AS2 endpoint",
        "yard-svc": "yard moves and dock-door scheduling (team Yard; Python, FastAPI); PostgreSQL yarddb",
        "eta-predictor": "arrival estimates (team Data; Python); consumes eta.requests",
        "shipper-portal": "the shippers' web app (team Portal; Node, Next.js); calls dispatch-api",
        "tw-go-kit": "shared Go module (team Platform): HTTP client, retries, logging; every Go service vendors it",
        "fleetdb": "PostgreSQL 15 primary fleetdb-1 with streaming replica fleetdb-2 (reads for the portal)",
        "tw-kafka": "Kafka cluster, 3 brokers (kafka-0..2), 2 TB gp3 volumes each",
    },
    lang={
        "dispatch-api": "go",
        "route-planner": "java",
        "tracking-ingest": "java",
        "carrier-gateway": "go",
        "yard-svc": "python",
        "eta-predictor": "python",
        "shipper-portal": "node",
        "tw-go-kit": "go",
    },
    authors=(
        "r.delacroix",
        "mbekele",
        "jun.park",
        "s.haddad",
        "oyelaran",
        "k.lindqvist",
        "dependabot[bot]",
    ),
    style=_conventional,
    strays=[
        ("WARNING", "ELD ping older than 300s discarded (clock skew on unit)"),
        ("WARNING", "tender response from carrier SCAC=RDWY took 4100ms"),
        ("ERROR", "geofence lookup: point outside any known yard polygon (lat=41.88 lon=-87.63)"),
        ("WARNING", "hos check: driver d-2291 near 11h drive limit"),
        ("ERROR", "EDI 214 parse: segment AT7 missing status reason code"),
        ("WARNING", "slow statement on fleetdb: SELECT ... FROM loads took 1.9s"),
    ],
    chatter={
        "dispatch-api": [
            "load tendered to carrier",
            "driver assignment committed",
            "hos check passed",
        ],
        "yard-svc": ["yard move completed", "dock door assigned"],
        "carrier-gateway": ["EDI 990 accepted", "EDI 214 status update stored"],
    },
)

FERNBANK = Company(
    name="Fernbank Pay",
    domain="fernbank.example",
    services=[
        Svc(
            "card-auth",
            "api",
            ("/authorize", "/reversal", "/advice"),
            topic="authorizations",
            rps=140,
            p99=120,
            noun="authorization",
        ),
        Svc(
            "ledger-svc",
            "api",
            ("/postings", "/accounts/{id}/balance"),
            topic="ledger",
            rps=95,
            p99=80,
            noun="posting",
        ),
        Svc(
            "payments-gw",
            "api",
            ("/transfers", "/transfers/{id}", "/payees"),
            topic="payments",
            rps=40,
            p99=350,
            noun="transfer",
        ),
        Svc(
            "kyc-svc",
            "api",
            ("/verifications", "/verifications/{id}"),
            topic="onboarding",
            rps=6,
            p99=2200,
            noun="verification",
        ),
        Svc(
            "fx-rates",
            "api",
            ("/rates/{pair}", "/quotes"),
            topic="fx",
            rps=70,
            p99=40,
            noun="quote",
        ),
        Svc("statement-svc", "worker", topic="statements.jobs", rps=12, p99=1400, noun="statement"),
        Svc(
            "app-bff",
            "web",
            ("/m/home", "/m/cards", "/m/activity"),
            topic="mobile",
            rps=160,
            p99=380,
            noun="screen",
        ),
    ],
    catalog={
        "card-auth": "real-time card authorizations from the issuer processor over ISO 8583 (team Cards; Kotlin, Spring); calls risk scoring in-process and ledger-svc for holds; Redis ratelimit-redis for velocity checks",
        "ledger-svc": "double-entry postings and balances (team Ledger; Java 17); PostgreSQL ledger-db (primary ledger-db-a, replica ledger-db-b for reads); HikariCP pool",
        "payments-gw": "outgoing transfers through the partner bank Harbor Bank (api.harborbank.example, mutual TLS) (team Payments; Java)",
        "kyc-svc": "identity verification through the provider VeriPass (api.veripass.example) (team Onboarding; Python)",
        "fx-rates": "currency quotes, cached from the rate feed (team Treasury; Go)",
        "statement-svc": "monthly statements and activity exports, reads ledger-db-b (team Ledger; Python worker)",
        "app-bff": "backend for the mobile app (team Mobile; Node); calls card-auth, ledger-svc, payments-gw, fx-rates",
        "fb-commons": "shared Java library (team Platform): HTTP client, retry policy, idempotency keys; services pick it up on their next build",
        "ratelimit-redis": "shared Redis 7 (one primary) used by card-auth velocity checks, app-bff sessions and the marketing team's campaign counters",
    },
    lang={
        "card-auth": "java",
        "ledger-svc": "java",
        "payments-gw": "java",
        "kyc-svc": "python",
        "fx-rates": "go",
        "statement-svc": "python",
        "app-bff": "node",
        "fb-commons": "java",
    },
    authors=(
        "anneke.v",
        "tmurphy",
        "gabriela.s",
        "r.nakamura",
        "ifeoma.o",
        "p.lindgren",
        "renovate[bot]",
    ),
    style=_jira,
    strays=[
        ("WARNING", "ISO8583 advice for unknown STAN 004417 ignored"),
        ("WARNING", "idempotency key replayed, returning stored response"),
        ("ERROR", "chargeback file CB-20260914 row 88: unknown reason code 4837"),
        ("WARNING", "BIN table refresh took 3.1s"),
        ("ERROR", "push token rejected by APNs: BadDeviceToken"),
        ("WARNING", "velocity check near limit for card ****1188"),
    ],
    chatter={
        "card-auth": [
            "authorization approved rc=00",
            "authorization declined rc=51 (insufficient funds)",
            "reversal matched",
        ],
        "ledger-svc": ["posting committed (2 legs)", "balance served from replica"],
        "payments-gw": ["transfer submitted to Harbor Bank", "transfer settled"],
    },
)

BRAMBLEWOOD = Company(
    name="Bramblewood Games",
    domain="bramblewood.example",
    services=[
        Svc(
            "matchmaker",
            "api",
            ("/v1/tickets", "/v1/tickets/{id}"),
            topic="matchmaking",
            rps=220,
            p99=140,
            noun="ticket",
        ),
        Svc(
            "lobby-gw",
            "web",
            ("/ws/lobby", "/lobby/{id}/ready"),
            topic="lobby",
            rps=300,
            p99=90,
            noun="lobby",
        ),
        Svc(
            "leaderboard-svc",
            "api",
            ("/boards/{season}", "/boards/{season}/around/{player}"),
            topic="leaderboards",
            rps=180,
            p99=60,
            noun="board",
        ),
        Svc(
            "player-profile",
            "api",
            ("/players/{id}", "/players/{id}/loadout"),
            topic="profiles",
            rps=260,
            p99=45,
            noun="profile",
        ),
        Svc("stats-etl", "worker", topic="match.results", rps=55, p99=700, noun="match"),
        Svc(
            "store-api",
            "api",
            ("/store/offers", "/store/purchase"),
            topic="store",
            rps=30,
            p99=260,
            noun="offer",
        ),
        Svc(
            "chat-gw",
            "web",
            ("/ws/chat", "/chat/{channel}/history"),
            topic="chat",
            rps=240,
            p99=70,
            noun="message",
        ),
    ],
    catalog={
        "matchmaker": "builds matches from tickets by MMR and region (team Online; Go); Redis mm-redis for ticket pools; calls player-profile",
        "lobby-gw": "WebSocket gateway for lobbies and parties (team Online; Node)",
        "leaderboard-svc": "season leaderboards (team Competitive; Node, TypeScript); Redis lb-redis (sorted sets) in front of PostgreSQL statsdb",
        "player-profile": "profiles, loadouts, entitlements (team Accounts; Go); PostgreSQL profiledb",
        "stats-etl": "match results into statsdb and the warehouse (team Data; Python worker); consumes match.results",
        "store-api": "in-game store and purchases (team Commerce; Java); calls the console platforms' commerce APIs",
        "chat-gw": "text chat (team Social; Node)",
        "@bramble/net": "shared Node package (team Platform): HTTP/WebSocket client with retries and backoff; used by lobby-gw, chat-gw, leaderboard-svc",
        "k8s": "one EKS cluster per region (prod-use1, prod-euw1); node groups ng-game (c6i) and ng-data (r6i)",
    },
    lang={
        "matchmaker": "go",
        "lobby-gw": "node",
        "leaderboard-svc": "node",
        "player-profile": "go",
        "stats-etl": "python",
        "store-api": "java",
        "chat-gw": "node",
        "@bramble/net": "node",
    },
    authors=(
        "nico.ferraro",
        "aisha.k",
        "b.thorsen",
        "yuki.m",
        "dpetrov",
        "carla.mendes",
        "github-actions[bot]",
    ),
    style=_bracket,
    strays=[
        ("WARNING", "client build 1.42.0 below min supported 1.43.0, asked to update"),
        ("WARNING", "party leader disconnected, promoting next member"),
        ("ERROR", "anticheat report upload failed: 413 payload too large"),
        ("WARNING", "tick overrun on shard usw-7: 38ms > 33ms"),
        ("ERROR", "entitlement sync: platform returned 502, will retry"),
        ("WARNING", "websocket closed by client (1006) during handshake"),
    ],
    chatter={
        "matchmaker": ["match formed (10 players, mmr spread 143)", "ticket expired after 120s"],
        "lobby-gw": ["lobby created", "party joined lobby"],
        "leaderboard-svc": ["board page served from cache", "score submitted"],
    },
)

CORVID = Company(
    name="Corvid Media",
    domain="corvid.example",
    services=[
        Svc(
            "playback-api",
            "api",
            ("/v3/playback/{title}", "/v3/heartbeat"),
            topic="playback",
            rps=260,
            p99=180,
            noun="session",
        ),
        Svc(
            "manifest-svc",
            "api",
            ("/hls/{title}/master.m3u8", "/dash/{title}/manifest.mpd"),
            topic="packaging",
            rps=310,
            p99=70,
            noun="manifest",
        ),
        Svc(
            "license-svc",
            "api",
            ("/widevine/license", "/fairplay/ckc"),
            topic="drm",
            rps=120,
            p99=110,
            noun="license",
        ),
        Svc("transcode-worker", "worker", topic="ingest.jobs", rps=4, p99=90000, noun="rendition"),
        Svc(
            "catalog-api",
            "api",
            ("/titles/{id}", "/rows/home"),
            topic="catalog",
            rps=190,
            p99=95,
            noun="title",
        ),
        Svc("recs-svc", "api", ("/recs/{profile}",), topic="recs", rps=85, p99=240, noun="row"),
        Svc(
            "accounts-api",
            "api",
            ("/profiles", "/entitlements/{account}"),
            topic="accounts",
            rps=110,
            p99=70,
            noun="profile",
        ),
    ],
    catalog={
        "playback-api": "starts playback: entitlement, manifest URL, license URL (team Playback; Python, Django); PostgreSQL playdb; calls accounts-api, manifest-svc, license-svc",
        "manifest-svc": "HLS and DASH manifests, signed CDN URLs (team Packaging; Go); CDN Fastpath (cdn.fastpath.example)",
        "license-svc": "Widevine and FairPlay licenses (team DRM; Java); key ring from Vault",
        "transcode-worker": "renditions from mezzanine files (team Media Pipeline; Python); consumes ingest.jobs",
        "catalog-api": "titles, artwork, home rows (team Catalog; Node); PostgreSQL catalogdb; Elasticsearch",
        "recs-svc": "recommendation rows (team Personalization; Python)",
        "accounts-api": "profiles and entitlements (team Accounts; Go); PostgreSQL accountsdb",
    },
    lang={
        "playback-api": "python",
        "manifest-svc": "go",
        "license-svc": "java",
        "transcode-worker": "python",
        "catalog-api": "node",
        "recs-svc": "python",
        "accounts-api": "go",
    },
    authors=(
        "mira.s",
        "ethan.cole",
        "f.haddou",
        "lena.ortiz",
        "vkumar",
        "o.adeyemi",
        "dependabot[bot]",
    ),
    style=_pr,
    strays=[
        ("WARNING", "rebuffer ratio above 1% for ASN 7922 (client side)"),
        ("WARNING", "heartbeat from unknown session, ignoring"),
        ("ERROR", "artwork fetch failed for title tt-88120: 404 from image origin"),
        ("WARNING", "license request without client capability header; assuming L3"),
        ("ERROR", "subtitle track vtt parse failed (title tt-10331, lang=pt-BR)"),
        ("WARNING", "Elasticsearch slow query 1.4s on titles index"),
    ],
    chatter={
        "playback-api": ["playback started (h264, 1080p)", "session heartbeat ok"],
        "license-svc": ["widevine license issued (L1)", "fairplay ckc issued"],
        "manifest-svc": ["master playlist served (7 renditions)"],
    },
)

LARKSPUR = Company(
    name="Larkspur Health",
    domain="larkspur.example",
    services=[
        Svc(
            "visit-api",
            "api",
            ("/visits", "/visits/{id}", "/visits/{id}/checkin"),
            topic="visits",
            rps=75,
            p99=160,
            noun="visit",
        ),
        Svc(
            "rx-router",
            "api",
            ("/prescriptions", "/prescriptions/{id}/route"),
            topic="erx",
            rps=28,
            p99=420,
            noun="prescription",
        ),
        Svc("claims-worker", "worker", topic="claims.outbound", rps=9, p99=2500, noun="claim"),
        Svc(
            "video-bridge",
            "web",
            ("/rooms/{id}/join", "/rooms/{id}/token"),
            topic="video",
            rps=50,
            p99=110,
            noun="room",
        ),
        Svc("chart-sync", "worker", topic="hl7.inbound", rps=35, p99=300, noun="chart"),
        Svc("notify-svc", "worker", topic="notifications", rps=20, p99=600, noun="reminder"),
        Svc(
            "patient-web",
            "web",
            ("/app/visits", "/app/messages", "/app/billing"),
            topic="portal",
            rps=110,
            p99=520,
            noun="page",
        ),
    ],
    catalog={
        "visit-api": "appointments, check-in and visit notes (team Care; Python 3.12, FastAPI, SQLAlchemy); PostgreSQL caredb through pgbouncer; search in care-search",
        "rx-router": "routes e-prescriptions to pharmacies through the RxLink network (api.rxlink.example) (team Pharmacy; Go)",
        "claims-worker": "submits claims to the ClearPath clearinghouse (edi.clearpath.example) (team Revenue; Python worker); consumes claims.outbound",
        "video-bridge": "video visit rooms and join tokens (team Virtual Care; Node)",
        "chart-sync": "HL7 v2 ADT and ORU feeds from partner clinics into charts (team Integrations; Java 17); consumes hl7.inbound",
        "notify-svc": "visit reminders by SMS and e-mail through TextWave (api.textwave.example) (team Engagement; Python worker)",
        "patient-web": "the patients' web app (team Portal; Node); calls visit-api, rx-router, video-bridge",
        "care-search": "OpenSearch 2 cluster (3 data nodes, care-search-0..2) for provider and visit search",
        "caredb": "PostgreSQL 16 behind pgbouncer (pool mode transaction)",
    },
    lang={
        "visit-api": "python",
        "rx-router": "go",
        "claims-worker": "python",
        "video-bridge": "node",
        "chart-sync": "java",
        "notify-svc": "python",
        "patient-web": "node",
    },
    authors=(
        "h.abara",
        "wen.zhou",
        "m.oconnell",
        "tpetrakis",
        "isabel.r",
        "k.osei",
        "renovate[bot]",
    ),
    style=_pr,
    strays=[
        ("WARNING", "check-in attempted 45m before slot, asked to wait"),
        ("WARNING", "pharmacy NCPDP 5522109 directory entry stale (last sync 26h)"),
        ("ERROR", "fax fallback for pharmacy 0412337 failed: line busy"),
        ("WARNING", "HL7 ACK delayed 2.2s for sending facility FAC-0031"),
        ("ERROR", "reminder not sent: patient opted out of SMS"),
        ("WARNING", "ICE candidate gathering took 3.1s (TURN relay)"),
    ],
    chatter={
        "visit-api": ["visit checked in", "visit note saved", "slot booked"],
        "rx-router": ["prescription routed to pharmacy", "NEWRX accepted"],
        "chart-sync": ["ADT^A08 applied to chart", "ORU^R01 result filed"],
    },
)

OSPREY = Company(
    name="Osprey Energy",
    domain="ospreyenergy.example",
    services=[
        Svc("meter-ingest", "worker", topic="meter.readings", rps=900, p99=60, noun="reading"),
        Svc(
            "billing-engine",
            "api",
            ("/bills/{account}", "/bills/{account}/preview"),
            topic="billing",
            rps=25,
            p99=700,
            noun="bill",
        ),
        Svc(
            "charge-point-gw",
            "api",
            ("/ocpp/{station}", "/stations/{id}/sessions"),
            topic="ev",
            rps=140,
            p99=90,
            noun="session",
        ),
        Svc("grid-forecast", "worker", topic="forecast.jobs", rps=2, p99=40000, noun="forecast"),
        Svc(
            "customer-portal",
            "web",
            ("/account", "/usage", "/outages"),
            topic="portal",
            rps=80,
            p99=450,
            noun="page",
        ),
        Svc(
            "tariff-svc",
            "api",
            ("/tariffs/{plan}", "/tariffs/{plan}/rates"),
            topic="tariffs",
            rps=45,
            p99=50,
            noun="tariff",
        ),
        Svc(
            "outage-map",
            "api",
            ("/map/tiles/{z}/{x}/{y}", "/map/incidents"),
            topic="outages",
            rps=60,
            p99=120,
            noun="tile",
        ),
    ],
    catalog={
        "meter-ingest": "smart-meter interval readings from the head-end system (team Metering; Go); consumes meter.readings; writes TimescaleDB readingsdb",
        "billing-engine": "bills and bill previews (team Billing; Kotlin); calls tariff-svc; PostgreSQL billingdb",
        "charge-point-gw": "OCPP 1.6 WebSocket gateway for EV charging stations (team eMobility; Node)",
        "grid-forecast": "load forecasts per feeder (team Grid Analytics; Python, pandas); consumes forecast.jobs",
        "customer-portal": "customers' web app (team Digital; Node); calls billing-engine, outage-map",
        "tariff-svc": "tariff plans and time-of-use rates (team Pricing; Python)",
        "outage-map": "public outage map tiles (team Digital; Go)",
        "osprey-go-common": "shared Go module (team Platform): database helpers, HTTP client defaults; Go services pick it up on their next build",
        "readingsdb": "TimescaleDB cluster (primary readingsdb-0)",
    },
    lang={
        "meter-ingest": "go",
        "billing-engine": "java",
        "charge-point-gw": "node",
        "grid-forecast": "python",
        "customer-portal": "node",
        "tariff-svc": "python",
        "outage-map": "go",
        "osprey-go-common": "go",
    },
    authors=("l.varga", "amara.n", "jseo", "f.moreau", "t.quinn", "rosa.b", "dependabot[bot]"),
    style=_jira,
    strays=[
        ("WARNING", "meter 7700123 interval gap filled by estimation"),
        ("WARNING", "station CP-0412 sent StatusNotification with unknown errorCode"),
        ("ERROR", "weather feed tile missing for grid cell 48/112"),
        ("WARNING", "bill preview took 2.8s for account with 14 meters"),
        ("ERROR", "postcode lookup failed: 404 for 'ZZ99 9ZZ'"),
        ("WARNING", "tile cache miss storm on z=12 (cold start)"),
    ],
    chatter={
        "meter-ingest": ["stored 15-minute interval batch", "head-end ack sent"],
        "charge-point-gw": ["BootNotification accepted", "MeterValues stored", "Heartbeat"],
        "billing-engine": ["bill generated", "bill preview served"],
    },
)

MARIGOLD = Company(
    name="Marigold Learning",
    domain="marigold.example",
    services=[
        Svc(
            "course-api",
            "api",
            ("/courses/{id}", "/courses/{id}/lessons"),
            topic="courses",
            rps=120,
            p99=140,
            noun="course",
        ),
        Svc(
            "quiz-engine",
            "api",
            ("/quizzes/{id}/attempts", "/attempts/{id}/submit"),
            topic="quizzes",
            rps=60,
            p99=200,
            noun="attempt",
        ),
        Svc("grader-worker", "worker", topic="grading.jobs", rps=15, p99=3000, noun="submission"),
        Svc(
            "classroom-web",
            "web",
            ("/class/{id}", "/class/{id}/roster"),
            topic="classroom",
            rps=150,
            p99=500,
            noun="page",
        ),
        Svc(
            "sso-bridge",
            "api",
            ("/saml/acs", "/oidc/callback"),
            topic="auth",
            rps=30,
            p99=250,
            noun="login",
        ),
        Svc("report-builder", "worker", topic="reports.jobs", rps=1, p99=60000, noun="report"),
    ],
    catalog={
        "course-api": "courses and lessons (team Content; Python, Django); PostgreSQL learndb (shared with quiz-engine and report-builder)",
        "quiz-engine": "quiz attempts and scoring (team Assessment; Go); PostgreSQL learndb",
        "grader-worker": "auto-grading of code exercises in sandboxes (team Assessment; Python worker); consumes grading.jobs",
        "classroom-web": "teachers' and students' web app (team Classroom; Node); calls course-api, quiz-engine, sso-bridge",
        "sso-bridge": "school district single sign-on through the identity hub IdHub (login.idhub.example) (team Identity; Java)",
        "report-builder": "district progress reports (team Insights; Python worker); reads learndb",
        "learndb": "PostgreSQL 15, max_connections 400, one primary learndb-0",
    },
    lang={
        "course-api": "python",
        "quiz-engine": "go",
        "grader-worker": "python",
        "classroom-web": "node",
        "sso-bridge": "java",
        "report-builder": "python",
    },
    authors=("p.adebayo", "sofia.l", "mkowalski", "d.tran", "greta.h", "renovate[bot]"),
    style=_conventional,
    strays=[
        ("WARNING", "lesson video transcript missing for locale es-MX"),
        ("WARNING", "roster sync skipped: district D-118 export not ready"),
        ("ERROR", "thumbnail render failed for lesson L-2231: unsupported codec"),
        ("WARNING", "attempt autosave conflict resolved (last write wins)"),
        ("ERROR", "grade passback to LMS failed: 409 conflict (already graded)"),
    ],
    chatter={
        "quiz-engine": ["attempt submitted", "attempt scored"],
        "course-api": ["lesson served", "progress saved"],
    },
)


# --- added by a second examiner (tune split only) -------------------------------------------------


def _area(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    return f"{r.choice(['build', 'ops', 'docs', 'tests'])}/{r.choice(['misc', 'ci', 'infra'])}: {body[0].lower()}{body[1:]}"


def _ticket_suffix(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    return f"{body[0].upper()}{body[1:]} (AG-{r.randint(300, 990)})"


JUNIPER = Company(
    name="Juniper Stays",
    domain="juniperstays.example",
    services=[
        Svc(
            "booking-api",
            "api",
            ("/v1/reservations", "/v1/reservations/{conf}/guarantee", "/v1/availability"),
            topic="reservations",
            rps=55,
            p99=240,
            noun="reservation",
        ),
        Svc(
            "rate-engine",
            "api",
            ("/rates/quote", "/rates/bar/{property}"),
            topic="rates",
            rps=160,
            p99=45,
            noun="quote",
        ),
        Svc("channel-sync", "worker", topic="ari.updates", rps=70, p99=800, noun="ari push"),
        Svc(
            "folio-svc",
            "api",
            ("/folios/{id}", "/folios/{id}/charges", "/folios/{id}/settle"),
            topic="folios",
            rps=30,
            p99=190,
            noun="folio",
        ),
        Svc(
            "keycard-svc",
            "api",
            ("/keys/encode", "/keys/{id}/revoke"),
            topic="keys",
            rps=8,
            p99=700,
            noun="key",
        ),
        Svc(
            "guest-app",
            "web",
            ("/app/stay", "/app/checkin", "/app/key", "/app/login"),
            topic="guest",
            rps=90,
            p99=480,
            noun="screen",
        ),
        Svc(
            "housekeeping-svc",
            "api",
            ("/rooms/{id}/status", "/boards/{property}"),
            topic="housekeeping",
            rps=14,
            p99=130,
            noun="room",
        ),
    ],
    catalog={
        "booking-api": "reservations, availability search, card guarantees (Reservations squad; Kotlin, Spring Boot, HikariCP); PostgreSQL resvdb via pgbouncer; calls rate-engine and the Quillpay vault (vault.quillpay.example) to tokenize guarantee cards",
        "rate-engine": "best-available-rate quotes per property, room type and LOS (Revenue squad; Go); in-process rate cache backed by ratesdb",
        "channel-sync": "pushes availability, rates and inventory (ARI) to OTAs through the RoomHub channel manager API (api.roomhub.example) (Distribution squad; Python worker); consumes ari.updates",
        "folio-svc": "guest folios, charges, settlement and the 03:00 local night audit (Front Office squad; Java 21); PostgreSQL foliodb",
        "keycard-svc": "mobile and RFID key encoding through the lock vendor's on-prem encoders (Guest Tech squad; Go)",
        "guest-app": "guests' web and in-app experience: check-in, digital key, stay details (Guest Tech squad; Node, Next.js); sessions in session-redis",
        "housekeeping-svc": "room status boards for housekeeping (Ops Tech squad; Python, FastAPI)",
        "session-redis": "Redis 7 (single primary + replica), maxmemory 6gb, policy noeviction; guest-app sessions and check-in drafts",
        "resvdb": "PostgreSQL 16 primary behind pgbouncer (transaction pooling, default_pool_size 120)",
    },
    lang={
        "booking-api": "java",
        "rate-engine": "go",
        "channel-sync": "python",
        "folio-svc": "java",
        "keycard-svc": "go",
        "guest-app": "node",
        "housekeeping-svc": "python",
    },
    authors=(
        "ines.ferreira",
        "bwalcott",
        "yuki.t",
        "r.mahlangu",
        "c.dubois",
        "a.kowal",
        "renovate[bot]",
    ),
    style=_area,
    strays=[
        (
            "WARNING",
            "OTA RoomHub returned warning W211: rate plan BAR-FLEX not mapped for property JS-0417",
        ),
        ("WARNING", "availability search for 0 rooms ignored (client sent rooms=0)"),
        ("ERROR", "encoder ENC-03 at property JS-0220 offline, routed to ENC-01"),
        ("WARNING", "folio posting for room 1412 after checkout, flagged for review"),
        ("ERROR", "loyalty lookup failed for member M-0 (empty member id)"),
        ("WARNING", "guest profile merge skipped: two emails differ only in case"),
    ],
    chatter={
        "booking-api": ["reservation confirmed", "availability search served", "guarantee stored"],
        "rate-engine": ["BAR quote served from cache", "rate cache refreshed for property"],
        "channel-sync": ["ARI batch acknowledged by RoomHub", "inventory delta pushed"],
        "folio-svc": ["charge posted to folio", "folio settled"],
        "keycard-svc": ["mobile key issued", "key encoded on ENC-01"],
    },
)

THORNFIELD = Company(
    name="Thornfield Agritech",
    domain="thornfield.example",
    services=[
        Svc("sensor-gateway", "worker", topic="lns.uplinks", rps=650, p99=35, noun="uplink"),
        Svc(
            "field-telemetry", "worker", topic="telemetry.decoded", rps=600, p99=70, noun="reading"
        ),
        Svc(
            "irrigation-ctl",
            "api",
            ("/zones/{id}/schedule", "/valves/{id}/command"),
            topic="irrigation",
            rps=20,
            p99=260,
            noun="valve command",
        ),
        Svc(
            "field-api",
            "api",
            ("/farms/{id}/fields", "/fields/{id}", "/fields/{id}/boundary"),
            topic="fields",
            rps=45,
            p99=150,
            noun="field",
        ),
        Svc("yield-model", "worker", topic="model.jobs", rps=3, p99=25000, noun="model run"),
        Svc("weather-ingest", "worker", topic="weather.pull", rps=4, p99=1800, noun="forecast"),
        Svc(
            "grower-app",
            "web",
            ("/dashboard", "/fields/{id}", "/irrigation", "/alerts"),
            topic="app",
            rps=35,
            p99=650,
            noun="page",
        ),
    ],
    catalog={
        "sensor-gateway": "decodes LoRaWAN uplinks (soil probes, flow meters, valve controllers) from the ChirpStack network server over MQTT and publishes JSON to telemetry.decoded (Edge team; Go); runs 3 replicas spread over zones a/b/c",
        "field-telemetry": "stores decoded readings in TimescaleDB soildb and raises threshold alerts (Data Platform team; Python worker)",
        "irrigation-ctl": "irrigation schedules and valve commands, sent as LoRaWAN downlinks through ChirpStack (Water team; Go)",
        "field-api": "farms, fields, boundaries, crop plans (Agronomy team; Java 17, Spring Boot, JPA); PostgreSQL fielddb",
        "yield-model": "yield and evapotranspiration model runs per field (Science team; Python, numpy, shapely); consumes model.jobs",
        "weather-ingest": "pulls hourly forecasts from the SkyCast API (api.skycast.example) (Data Platform team; Python worker)",
        "grower-app": "growers' web and mobile app (App team; Node); calls field-api, irrigation-ctl",
        "chirpstack": "self-hosted ChirpStack v4 LoRaWAN network server, 1 downlink queue per gateway",
        "emqx": "EMQX MQTT cluster (3 nodes), bridge between ChirpStack and sensor-gateway",
        "soildb": "TimescaleDB 2.14 on PostgreSQL 15, primary soildb-0",
    },
    lang={
        "sensor-gateway": "go",
        "field-telemetry": "python",
        "irrigation-ctl": "go",
        "field-api": "java",
        "yield-model": "python",
        "weather-ingest": "python",
        "grower-app": "node",
    },
    authors=(
        "e.mwangi",
        "lars.h",
        "pcastillo",
        "n.ivanova",
        "taro.m",
        "g.oduya",
        "dependabot[bot]",
    ),
    style=_ticket_suffix,
    strays=[
        ("WARNING", "uplink with FCnt reset from dev 70b3d57ed005a1c2 (device rejoined)"),
        ("WARNING", "probe SP-2291 reports soil temp -40.0C (sensor fault code), value dropped"),
        ("ERROR", "downlink to valve VC-0187 not acknowledged after 2 retries (device asleep)"),
        ("WARNING", "SkyCast forecast for grid 51.2N/0.7E older than 2h, using previous run"),
        ("ERROR", "boundary import rejected: KML has no Polygon element (field F-30412)"),
        ("WARNING", "grower session refreshed with stale farm list, reloading"),
    ],
    chatter={
        "sensor-gateway": ["uplink decoded (soil probe v3)", "uplink decoded (flow meter)"],
        "field-telemetry": ["readings chunk written to soildb", "threshold check ok"],
        "irrigation-ctl": ["valve command queued as downlink", "schedule saved"],
        "field-api": ["boundary served", "crop plan saved"],
    },
)

# --- added by a third examiner (tune split only) --------------------------------------------------


def _hrt_key(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    return f"[HRT-{r.randint(2100, 3400)}] {body[0].upper()}{body[1:]}"


def _gitmoji(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    low = body.lower()
    if low.startswith(("bump", "chore")):
        emoji = ":arrow_up:"
    elif low.startswith(("docs", "link")) or "readme" in low:
        emoji = ":memo:"
    elif low.startswith(("test", "cover")):
        emoji = ":white_check_mark:"
    else:
        emoji = r.choice([":wrench:", ":chart_with_upwards_trend:", ":recycle:"])
    return f"{emoji} {body[0].lower()}{body[1:]}"


HALYARD = Company(
    name="Halyard Regional Transit",
    domain="halyardtransit.example",
    services=[
        Svc(
            "fare-gateway",
            "api",
            ("/v2/taps", "/v2/taps/{id}/reversal", "/v2/validators/{id}/heartbeat"),
            topic="fares.taps",
            rps=120,
            p99=220,
            noun="tap",
        ),
        Svc(
            "rider-accounts",
            "api",
            ("/accounts/{id}", "/accounts/{id}/caps", "/media/{token}/products"),
            topic="accounts",
            rps=90,
            p99=120,
            noun="account",
        ),
        Svc("avl-ingest", "worker", topic="avl.positions", rps=400, p99=25, noun="position"),
        Svc("gtfs-rt-publisher", "worker", topic="feed.builds", rps=2, p99=6000, noun="feed build"),
        Svc(
            "trip-planner",
            "api",
            ("/otp/plan", "/stops/{id}/departures", "/routes/{id}/vehicles"),
            topic="planner",
            rps=70,
            p99=900,
            noun="itinerary",
        ),
        Svc(
            "signage-push", "worker", topic="signs.predictions", rps=25, p99=150, noun="sign update"
        ),
        Svc(
            "paratransit-booking",
            "api",
            ("/trips", "/trips/{id}/schedule", "/riders/{id}/eligibility"),
            topic="paratransit",
            rps=6,
            p99=350,
            noun="trip booking",
        ),
    ],
    catalog={
        "fare-gateway": "receives contactless (EMV) and fare-card taps from ~2,400 bus and platform validators, checks products and fare caps with rider-accounts, authorizes EMV taps with the acquirer Northgate Acquiring (acq.northgate.example, ISO 8583 over TLS) (Fare Systems; Java 21, Spring Boot); validators approve offline when fare-gateway does not answer within 1.5 s",
        "rider-accounts": "rider accounts, fare media, passes, daily and weekly fare caps, autoload (Fare Systems; Java 21, Spring Boot, HikariCP); PostgreSQL faredb",
        "avl-ingest": "automatic vehicle location: GPS pings from bus CAD/AVL modems every 10 s, publishes to avl.positions (Operations Tech; Go)",
        "gtfs-rt-publisher": "builds the GTFS-realtime TripUpdates and VehiclePositions feeds every 15 s from avl.positions and the static GTFS; serves https://gtfs.halyardtransit.example/rt/ to third-party apps (Operations Tech; Python)",
        "trip-planner": "public trip planner API api.halyardtransit.example (OpenTripPlanner behind a Node gateway) used by the rider app and third-party apps (Digital; Node); certificate issued by cert-manager (Let's Encrypt, DNS-01)",
        "signage-push": "arrival countdowns to 610 stop signs and platform displays (Operations Tech; Go); uses the transit-kit Go module for GTFS time handling",
        "paratransit-booking": "demand-response trip booking and scheduling (Accessible Services; Python, Django)",
        "transit-kit": "shared Go module (gtfstime, geo, feedclient) used by avl-ingest and signage-push; versioned with tags, picked up by a go.mod bump",
        "faredb": "PostgreSQL 15 primary + 1 replica",
    },
    lang={
        "fare-gateway": "java",
        "rider-accounts": "java",
        "avl-ingest": "go",
        "gtfs-rt-publisher": "python",
        "trip-planner": "node",
        "signage-push": "go",
        "paratransit-booking": "python",
    },
    authors=(
        "m.delacroix",
        "tbaptiste",
        "s.lindqvist",
        "dana.ochoa",
        "k.achterberg",
        "wen.zhou",
        "dependabot[bot]",
    ),
    style=_hrt_key,
    strays=[
        ("WARNING", "validator V-1187 heartbeat late by 94s (bus 4412 in depot, modem asleep)"),
        ("WARNING", "tap from unknown media type 0x3F ignored (validator V-0620)"),
        ("ERROR", "AVL ping from vehicle 9031 rejected: coordinates 0.0,0.0 (no GPS fix)"),
        ("WARNING", "static GTFS trip 8812_WKD_0605 has no shape_id, drawing straight lines"),
        ("ERROR", "autoload for account A-0 skipped: card on file expired"),
        ("WARNING", "sign S-2210 did not ack update within 30s, will resend"),
    ],
    chatter={
        "fare-gateway": [
            "tap approved media=EMV product=PAYG",
            "tap approved media=card product=MONTHLY",
            "validator heartbeat ok",
        ],
        "rider-accounts": ["cap evaluated, under daily cap", "autoload completed"],
        "avl-ingest": ["positions batch published to avl.positions"],
        "gtfs-rt-publisher": ["TripUpdates feed built", "VehiclePositions feed built"],
        "signage-push": ["sign predictions pushed", "sign heartbeat ok"],
    },
)

SALTMARSH = Company(
    name="Saltmarsh Mobile",
    domain="saltmarsh.example",
    services=[
        Svc(
            "provisioning-api",
            "api",
            ("/subscribers/{msisdn}/plan", "/sims/{iccid}/activate", "/esim/orders"),
            topic="provisioning",
            rps=35,
            p99=260,
            noun="order",
        ),
        Svc("rating-engine", "worker", topic="cdr.raw", rps=900, p99=18, noun="cdr"),
        Svc(
            "number-porting", "worker", topic="port.requests", rps=3, p99=1200, noun="port request"
        ),
        Svc(
            "topup-svc",
            "api",
            ("/topups", "/topups/{id}", "/vouchers/redeem"),
            topic="topups",
            rps=25,
            p99=900,
            noun="topup",
        ),
        Svc(
            "selfcare-web",
            "web",
            ("/account", "/plan", "/topup", "/login", "/login/otp"),
            topic="selfcare",
            rps=110,
            p99=520,
            noun="page",
        ),
        Svc("sms-gateway", "worker", topic="sms.outbound", rps=40, p99=300, noun="sms"),
        Svc("billing-batch", "worker", topic="bill.runs", rps=5, p99=4000, noun="bill"),
    ],
    catalog={
        "provisioning-api": "SIM and eSIM activation, plan changes, add-ons; pushes subscriber profiles to the HSS/UDM (Core IT; Java 17, Spring Boot, JPA); PostgreSQL subsdb",
        "rating-engine": "rates call detail records (CDRs) from cdr.raw (24 partitions) against tariffs and balances, writes rated events to cdr.rated (Charging; Go); balances in ocs-redis",
        "number-porting": "port-in and port-out requests with the national clearinghouse PortHub (api.porthub.example) (Core IT; Python worker)",
        "topup-svc": "prepaid top-ups and vouchers; card payments through Paylinx (api.paylinx.example) (Payments; Go)",
        "selfcare-web": "customer portal and app backend: login with SMS one-time codes, plan changes, top-ups (Digital; Node, NestJS); JSON logs with err.stack",
        "sms-gateway": "sends SMS (one-time codes, notifications) to the Tidemark SMSC over SMPP 3.4 (Messaging; Go)",
        "billing-batch": "monthly and daily bill runs, invoices (Billing; Java 17)",
        "ocs-redis": "Redis 7 cluster for prepaid balances (6 shards)",
        "subsdb": "PostgreSQL 16 primary, max_connections 400",
    },
    lang={
        "provisioning-api": "java",
        "rating-engine": "go",
        "number-porting": "python",
        "topup-svc": "go",
        "selfcare-web": "node",
        "sms-gateway": "go",
        "billing-batch": "java",
    },
    authors=(
        "aoife.brennan",
        "rk.menon",
        "fsilva",
        "h.nakagawa",
        "ola.s",
        "jmbeki",
        "renovate[bot]",
    ),
    style=_gitmoji,
    strays=[
        ("WARNING", "CDR with zero duration from MSC msc-02 dropped (call setup failure)"),
        ("WARNING", "PortHub callback for port P-0 ignored: unknown port id"),
        (
            "ERROR",
            "HSS profile push for IMSI 23415******0193 failed: subscriber not found, will retry",
        ),
        ("WARNING", "selfcare session refreshed with expired refresh token, user sent to login"),
        ("ERROR", "Paylinx webhook signature mismatch for event evt_0 (replayed test event)"),
        ("WARNING", "SMPP enquire_link took 820ms (threshold 500ms)"),
    ],
    chatter={
        "rating-engine": ["cdr batch rated", "balance reservation committed"],
        "provisioning-api": ["plan change applied", "eSIM profile released"],
        "sms-gateway": ["submit_sm_resp ok", "delivery receipt received"],
        "selfcare-web": ["login ok", "otp verified"],
        "topup-svc": ["topup authorized", "voucher redeemed"],
    },
)


def _merge_pr(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    branch = "-".join(body.lower().replace("'", "").split()[:3])
    user = r.choice(["nkowalczyk", "priya-r", "tmoreau", "j-okafor"])
    return f"Merge pull request #{r.randint(6100, 7900)} from {user}/{branch}: {body[0].upper()}{body[1:]}"


def _azure_boards(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    return f"AB#{r.randint(40100, 48900)} {body[0].upper()}{body[1:]}"


BASKETRUN = Company(
    name="Basketrun Grocery",
    domain="basketrun.example",
    services=[
        Svc(
            "storefront-api",
            "api",
            ("/api/v3/cart", "/api/v3/checkout", "/api/v3/stores/{id}/products"),
            topic="storefront",
            rps=180,
            p99=340,
            noun="cart",
        ),
        Svc("order-router", "worker", topic="orders.placed", rps=14, p99=120, noun="order"),
        Svc(
            "slot-service",
            "api",
            ("/slots/available", "/slots/{id}/reserve", "/zones/{postcode}"),
            topic="slots",
            rps=220,
            p99=60,
            noun="delivery slot",
        ),
        Svc(
            "shopper-api",
            "api",
            ("/shopper/batches", "/shopper/items/{id}/picked", "/shopper/items/{id}/substitute"),
            topic="picking",
            rps=60,
            p99=230,
            noun="pick",
        ),
        Svc("inventory-sync", "worker", topic="feeds.inventory", rps=30, p99=900, noun="feed"),
        Svc(
            "payments-svc",
            "api",
            ("/charges", "/charges/{id}/capture", "/refunds"),
            topic="payments",
            rps=15,
            p99=450,
            noun="charge",
        ),
    ],
    catalog={
        "storefront-api": "customer app and web backend: store catalogs, carts, checkout (Commerce; Ruby 3.3, Rails 7.1, Puma); PostgreSQL shopdb via ActiveRecord; Ruby backtraces in the `backtrace` attribute",
        "order-router": "assigns each placed order to a partner store and a shopper batch, reserves the delivery slot (Fulfilment; Elixir 1.16, Broadway consumer on orders.placed); crash reports in the `crash_report` attribute",
        "slot-service": "delivery slot availability and reservations per zone and postcode (Fulfilment; Rust, axum, tokio, sqlx); uses the shared br-geo crate for postcode -> zone lookups",
        "br-geo": "shared Rust crate (postcode normalisation, zone polygons, geohash) used by slot-service and shopper-api's routing sidecar; released with tags, picked up by a Cargo.toml bump",
        "shopper-api": "shopper app backend: picking batches, substitutions, item scans (Shopper; Node 20, Fastify); JSON logs with a nested `error` object",
        "inventory-sync": "imports partner grocers' stock and price feeds every 10 minutes (CSV over SFTP, and FreshCo's JSON API) into shopdb (Catalog; Python 3.12); runs on VM sync-vm-02, scratch files on /data",
        "payments-svc": "card charges and refunds through Stripe-like provider Tallypay (api.tallypay.example) (Payments; Go)",
        "shopdb": "PostgreSQL 15 (primary + 2 replicas), max_connections 500, statement_timeout 8s for storefront-api",
    },
    lang={
        "storefront-api": "ruby",
        "order-router": "elixir",
        "slot-service": "rust",
        "shopper-api": "node",
        "inventory-sync": "python",
        "payments-svc": "go",
    },
    authors=("nkowalczyk", "priya-r", "tmoreau", "j-okafor", "lena.brandt", "dependabot[bot]"),
    style=_merge_pr,
    strays=[
        ("WARNING", "store 1187 feed row skipped: price 0.00 for sku 40012 (promo placeholder)"),
        ("WARNING", "substitution declined by customer for item 88213, refund queued"),
        ("ERROR", "Tallypay webhook for ch_0 arrived before the charge was stored, will retry"),
        ("WARNING", "slot reserve conflict for zone LDN-E14, retrying with next slot"),
        ("WARNING", "Puma worker 3 booted after memory threshold restart (1.4 GB)"),
        ("ERROR", "shopper 5512 scanned barcode 0000000000000 (unknown), asked to retype"),
    ],
    chatter={
        "storefront-api": [
            "Completed 200 OK in 84ms (Views: 0.4ms | ActiveRecord: 31.2ms | Allocations: 8812)",
            "Completed 201 Created in 212ms (ActiveRecord: 96.0ms)",
        ],
        "order-router": ["order assigned store=1187 batch=b-7712", "slot hold confirmed"],
        "slot-service": ["slots computed zone=LDN-E14 count=18", "reservation committed"],
        "inventory-sync": ["feed imported store=2204 rows=11873", "price deltas applied"],
        "shopper-api": ["batch started", "item picked"],
    },
)

QUAYSIDE = Company(
    name="Quayside Claims",
    domain="quaysideclaims.example",
    services=[
        Svc(
            "claims-intake",
            "api",
            ("/api/claims", "/api/claims/{id}/documents", "/api/claims/{id}/status"),
            topic="claims.intake",
            rps=22,
            p99=480,
            noun="claim",
        ),
        Svc(
            "fnol-portal",
            "web",
            ("/report", "/report/vehicle", "/report/property", "/track"),
            topic="fnol",
            rps=35,
            p99=600,
            noun="report",
        ),
        Svc(
            "policy-lookup",
            "api",
            ("/policy.php", "/policy/cover.php", "/bordereaux/import.php"),
            topic="policies",
            rps=40,
            p99=150,
            noun="policy",
        ),
        Svc("doc-ocr", "worker", topic="claims.documents", rps=3, p99=5200, noun="document"),
        Svc("fraud-scoring", "worker", topic="claims.score", rps=8, p99=300, noun="score"),
        Svc("payout-svc", "worker", topic="payouts.approved", rps=1.5, p99=800, noun="payout"),
    ],
    catalog={
        "claims-intake": "claims API for brokers and the FNOL portal; validates cover with policy-lookup, stores documents in Nimbus Blob Storage (account qcdocs, region eu-central-2), queues OCR and fraud scoring (Claims Core; C# .NET 8, ASP.NET Core, EF Core); SQL Server claimsdb",
        "fnol-portal": "first notice of loss web portal for policyholders (Digital; Node, Next.js)",
        "policy-lookup": "policy and cover lookups; imports brokers' monthly bordereaux (CSV) (Policy Admin; PHP 8.2, legacy, FPM); MySQL policydb",
        "doc-ocr": "OCR and classification of claim documents from Nimbus Blob Storage (ML Platform; Python, Tesseract workers on 8 pods)",
        "fraud-scoring": "scores each claim for fraud signals (ML Platform; Python, FastAPI workers); reads claim history from claimsdb replica",
        "payout-svc": "computes settlement payouts and writes the daily SEPA bank file (Finance Eng; Java 21)",
        "claimsdb": "Azure-style SQL Server, General Purpose 8 vCores: max 800 concurrent workers / sessions, claims-intake pool Max Pool Size per pod from the connection string",
        "Nimbus Cloud": "cloud provider (regions eu-central-1, eu-central-2); status page https://status.nimbus.example",
    },
    lang={
        "claims-intake": "csharp",
        "fnol-portal": "node",
        "policy-lookup": "php",
        "doc-ocr": "python",
        "fraud-scoring": "python",
        "payout-svc": "java",
    },
    authors=("m.oyelaran", "sfitzgerald", "d.ivanova", "benoit.r", "kwame.a", "renovate[bot]"),
    style=_azure_boards,
    strays=[
        (
            "WARNING",
            "broker BRK-0412 submitted claim without loss postcode, defaulted to policy address",
        ),
        ("WARNING", "OCR confidence 0.41 below 0.5 for document page 3, flagged for manual review"),
        ("ERROR", "policy-lookup: cover not found for policy QX-000000 (test policy in prod feed)"),
        (
            "WARNING",
            "fraud-scoring feature 'prior_claims_36m' missing for new policyholder, imputed 0",
        ),
        (
            "ERROR",
            "SEPA validation: IBAN checksum failed for payee P-88121, payout held for review",
        ),
        ("WARNING", "EF Core: query with 'Include' loaded 1200 rows, consider split query"),
    ],
    chatter={
        "claims-intake": [
            "Request finished HTTP/1.1 POST /api/claims - 201 - application/json 212.4ms",
            "Claim received from broker channel",
        ],
        "policy-lookup": ['"GET /policy.php?ref=QX" 200', "cover check ok"],
        "doc-ocr": ["document classified as invoice", "ocr finished pages=3"],
        "fraud-scoring": ["claim scored", "model fraud-gbm-v14 loaded"],
        "payout-svc": ["payout computed", "bank file line appended"],
    },
)


# --- seventh examiner (tune split only; stories in `ext/tune7.py`) -------------------------------


def _cairnline_gerrit(r: random.Random, text: str) -> str:
    """Cairnline: Gerrit-reviewed ``component: subject`` with the Change-Id trailer kept in the
    message the change feed sends."""
    head, _, rest = text.partition(": ")
    body = rest or text
    area = head if rest and head not in ("docs", "test", "alerts", "dashboards", "k8s") else "build"
    if text.lower().startswith(("bump", "chore(deps)")):
        area = "deps"
    return f"{area}: {body[0].lower()}{body[1:]}\n\nChange-Id: I{r.getrandbits(160):040x}"


def _redhaven_changelog(r: random.Random, text: str) -> str:
    """Redhaven: Keep-a-Changelog verbs with the RPA ticket at the end."""
    head, _, rest = text.partition(": ")
    body = rest or text
    if text.lower().startswith(("bump", "chore(deps)")):
        verb = "Changed"
    elif head in ("docs", "test", "alerts"):
        verb = "Added"
    else:
        verb = r.choice(["Changed", "Changed", "Added"])
    return f"{verb}: {body[0].lower()}{body[1:]} [RPA-{r.randint(2100, 2480)}]"


CAIRNLINE = Company(
    name="Cairnline Mountain Resorts",
    domain="cairnline.example",
    services=[
        Svc(
            "pass-api",
            "api",
            ("/v3/scans/validate", "/v3/passes/{mediaId}", "/v3/alliance/redeem", "/v3/products"),
            topic="passes",
            rps=70,
            p99=95,
            noun="pass",
        ),
        Svc("turnstile-gw", "worker", topic="gates/+/scan", rps=45, p99=60, noun="gate scan"),
        Svc(
            "shop-web",
            "web",
            ("/lift-tickets", "/season-passes", "/cart", "/checkout", "/account/reload"),
            topic="shop",
            rps=30,
            p99=700,
            noun="order",
        ),
        Svc("snowmaking-ctl", "worker", topic="snowmaking.cycles", rps=1.5, p99=900, noun="gun"),
        Svc("plant-scada", "worker", topic="modbus.poll", rps=25, p99=40, noun="register"),
        Svc(
            "rental-pos",
            "api",
            ("/api/rentals", "/api/rentals/{id}/checkout", "/api/fittings", "/api/dinsettings"),
            topic="rentals",
            rps=9,
            p99=240,
            noun="rental",
        ),
        Svc(
            "lift-status",
            "web",
            ("/live/lifts", "/api/lifts", "/api/runs", "/api/grooming"),
            topic="liftops",
            rps=110,
            p99=70,
            noun="lift",
        ),
    ],
    catalog={
        "pass-api": "validates every lift-gate scan (RFID media id -> pass product, blackout dates, alliance partner passes), sells and reloads passes (Ticketing; Kotlin 1.9, Ktor 2, Exposed); PostgreSQL ticketdb; logback JSON with `stack_trace`; calls Summit Alliance for partner-pass redemptions",
        "turnstile-gw": "gateway between the lift gates (Telemark TX-400 controllers, about 180 across three resorts) and pass-api: gates publish scans over MQTT to the site brokers, turnstile-gw asks pass-api and answers open/deny within 300 ms; gates fall back to an offline allow-list when they lose their broker (Ticketing; Go 1.22, slog JSON)",
        "shop-web": "online lift tickets, season passes and reloads (Digital; Node 20, Next.js); card payments through the payment gateway",
        "snowmaking-ctl": "automatic snowmaking: starts and stops fan guns and lances per trail from wet-bulb temperature, pond level and the night window (Mountain Ops; Python 3.12, asyncio, OPC UA to the gun controllers); settings per resort in deploy/snowmaking-ctl/resorts/*.yaml",
        "plant-scada": "reads pump houses, compressors and ponds over Modbus/TCP and exports metrics; pump stations trip on low suction below 20% pond level (Mountain Ops; Go)",
        "rental-pos": "ski and board rental shops: fittings, DIN settings, checkout (Retail; C# .NET 8, ASP.NET Core, Npgsql); PostgreSQL rentaldb",
        "lift-status": "lift and run status board for guests and lift operators (open, hold, wind hold, closed), grooming reports (Mountain Ops; Elixir, Phoenix LiveView)",
        "Summit Alliance": "partner pass alliance; each alliance pass is redeemed once per day per resort at first scan through api.summitalliance.example; status page https://status.summitalliance.example",
        "resorts": "Alder Peak, Stoneridge, Whitehorn; all on America/Denver time (UTC-7 in winter); lifts open 08:30-16:00 local, night skiing on Alder Peak lifts AP-3 and AP-4 until 21:00 local",
    },
    lang={
        "pass-api": "kotlin",
        "turnstile-gw": "go",
        "shop-web": "node",
        "snowmaking-ctl": "python",
        "plant-scada": "go",
        "rental-pos": "csharp",
        "lift-status": "elixir",
    },
    authors=(
        "ellie.marchetti",
        "jonas.reinholt",
        "pquispe",
        "sven.haugland",
        "tara.odonnell",
        "renovate[bot]",
    ),
    style=_cairnline_gerrit,
    strays=[
        ("WARNING", "gate AP-2-G3 reader temperature -31C below rated -30C, scans may slow"),
        (
            "WARNING",
            "media id 04:A1:7F:22:9C:51:80 read twice within 2s at gate SR-1-G1, debounced",
        ),
        ("ERROR", "receipt printer RP-STONERIDGE-2 offline (paper out)"),
        ("WARNING", "pass reload for guest G-551923 declined by issuer (do not honor)"),
        ("ERROR", "webcam snapshot upload failed for cam-wh-summit: 504 from media bucket"),
        (
            "WARNING",
            "grooming report for Whitehorn not published by 07:00 local, using yesterday's",
        ),
    ],
    chatter={
        "pass-api": [
            "scan validated decision=ALLOW product=PEAK_SEASON gate=AP-1-G2 took=7ms",
            "scan validated decision=ALLOW product=DAY_TICKET gate=SR-2-G1 took=5ms",
        ],
        "turnstile-gw": [
            "gate answered site=alder-peak gate=AP-1-G4 decision=open rtt_ms=41",
            "mqtt broker heartbeat ok site=whitehorn-base clients=38",
        ],
        "snowmaking-ctl": ["cycle evaluated trail=lower-bitterroot guns=6", "OPC UA session alive"],
        "plant-scada": ["poll ok unit=PS2 registers=48", "poll ok unit=CMP1 registers=32"],
        "rental-pos": [
            "HTTP POST /api/rentals/{id}/checkout responded 200 in 181.2 ms",
            "DIN computed skier_type=II",
        ],
        "lift-status": [
            "lift AP-1 status broadcast subscribers=412",
            "LiveView mounted /live/lifts",
        ],
    },
)

REDHAVEN = Company(
    name="Redhaven Port Authority",
    domain="redhavenport.example",
    services=[
        Svc("pcs-edi", "worker", topic="edi.inbound", rps=6, p99=450, noun="interchange"),
        Svc(
            "gate-tas",
            "api",
            ("/api/appointments", "/api/gate/transactions", "/api/slots", "/api/kiosk/checkin"),
            topic="gate",
            rps=18,
            p99=260,
            noun="appointment",
        ),
        Svc("gate-ocr", "worker", topic="gate.lanes.frames", rps=4, p99=850, noun="lane read"),
        Svc("customs-bridge", "worker", topic="customs.status", rps=2, p99=300, noun="release"),
        Svc("reefer-monitor", "worker", topic="reefer.readings", rps=35, p99=25, noun="reading"),
        Svc(
            "berth-planner",
            "web",
            ("/berths/", "/vessels/<imo>/", "/api/eta", "/api/pilotage"),
            topic="berths",
            rps=5,
            p99=420,
            noun="vessel call",
        ),
    ],
    catalog={
        "pcs-edi": "port community system EDI hub: EDIFACT BAPLIE, COPRAR, COPARN, CODECO and IFTMIN with shipping lines over AS2 and SFTP, to and from the terminal operating system (Port Systems; Java 17, Spring Boot 3, Apache Camel 4, Smooks EDI cartridge; ActiveMQ Artemis queues); Log4j2, exception in `exception`; heap 768m in a 1Gi container",
        "gate-tas": "truck appointment system and gate transactions: hauliers book slots, the kiosk checks them in, the gate releases or sends the truck to the trouble lane (Landside; C# .NET 8, ASP.NET Core, Npgsql + EF Core); PostgreSQL portdb",
        "gate-ocr": "OCR of container numbers, seals and plates at the 8 in-gate lanes; validates the ISO 6346 check digit and posts reads to gate-tas (Landside; Python 3.11, OpenCV, PaddleOCR on the gate GPU nodes)",
        "customs-bridge": "customs status (holds and releases by container) from CustomsNet, the national customs single window, to the TOS and gate-tas; polls CustomsNet or receives its push notifications, flag customs-bridge.release_feed_mode (Port Systems; Go 1.22)",
        "reefer-monitor": "reefer container power and temperatures in the reefer blocks over remote container devices, alarms to the reefer crew (Terminal Ops; Rust, tokio); TimescaleDB reeferdb",
        "berth-planner": "berth schedule, vessel calls and ETAs from AIS, pilotage bookings (Marine; Python 3.12, Django 5); PostgreSQL portdb",
        "portdb": "PostgreSQL 15 on VM pg-port-01 (primary) and pg-port-02 (streaming replica); data and pg_wal on one 400 GB volume; max_slot_wal_keep_size -1 (unlimited); logical slot dbz_reporting for the Data team's Debezium connector (Kafka Connect, reporting lake)",
        "TOS": "terminal operating system (vendor product, operated by the terminal): yard, vessel and work queues; exchanges EDI through pcs-edi",
        "CustomsNet": "national customs single window; REST API and push notifications (callback URLs registered per environment in the CustomsNet trader portal)",
    },
    lang={
        "pcs-edi": "java",
        "gate-tas": "csharp",
        "gate-ocr": "python",
        "customs-bridge": "go",
        "reefer-monitor": "rust",
        "berth-planner": "python",
    },
    authors=(
        "aoife.brennan",
        "k.vandermeer",
        "lena.sorensen",
        "gdacosta",
        "m.halvorsen",
        "dependabot[bot]",
    ),
    style=_redhaven_changelog,
    strays=[
        ("WARNING", "COPRAR from line HLX: container HLXU 220193 4 has no VGM yet, load list kept"),
        ("WARNING", "haulier H-2291 arrived 47 min after the slot window, admitted by gate clerk"),
        ("ERROR", "AIS: NMEA sentence checksum mismatch from receiver rx-breakwater, dropped"),
        (
            "WARNING",
            "reefer SZLU 918220 1 setpoint -25.0C differs from booking -18.0C, crew notified",
        ),
        ("ERROR", "kiosk K-04 card reader timeout, driver asked to retry"),
        ("WARNING", "pilot booking for IMO 9811000 moved by the pilot station, ETA recomputed"),
    ],
    chatter={
        "pcs-edi": [
            "Exchange completed route=coprar-in partner=MAE msgs=1 took=212ms",
            "AS2 MDN received partner=HLX disposition=processed",
        ],
        "gate-tas": [
            "Gate transaction completed lane=3 outcome=RELEASED duration_ms=412",
            "Appointment booked slot=09:00-10:00 haulier=H-1180",
        ],
        "gate-ocr": ["lane 2 read ok container conf=0.97", "lane 5 read ok plate conf=0.99"],
        "customs-bridge": ["status pushed to TOS count=3", "CustomsNet token refreshed"],
        "reefer-monitor": [
            "INFO reefer_monitor::poll: block R1 polled units=212 alarms=0",
            "INFO reefer_monitor::sink: batch written rows=640",
        ],
        "berth-planner": ['"GET /berths/ HTTP/1.1" 200', "ETA updated from AIS"],
    },
)


# --- added by an eighth examiner (held-out split only: evals/rca/ext/heldout8.py) -----------------


def _gerrit(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    low = body.lower()
    if low.startswith("bump"):
        area = "deps"
    elif low.startswith(("docs", "link")):
        area = "docs"
    elif low.startswith(("test", "cover")):
        area = "test"
    else:
        area = r.choice(["ops", "build"])
    return f"{area}: {body[0].lower()}{body[1:]}\n\nChange-Id: I{r.getrandbits(160):040x}"


def _gitlab(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    if r.random() < 0.3 and not body.lower().startswith("bump"):
        return f'Resolve "{body[0].upper()}{body[1:]}"'
    return f"{body[0].upper()}{body[1:]} (!{r.randint(380, 960)})"


KESTREL = Company(
    name="Kestrel Regional Air",
    domain="kestrelair.example",
    services=[
        Svc(
            "roster-api",
            "api",
            (
                "/v2/rosters/{crewId}",
                "/v2/trip-trades",
                "/v2/pairings/{id}",
                "/v2/publications/{date}",
            ),
            topic="rosters",
            rps=55,
            p99=320,
            noun="roster",
        ),
        Svc(
            "legality-engine",
            "api",
            ("/check/trip-trade", "/check/pairing", "/check/roster"),
            topic="legality",
            rps=70,
            p99=150,
            noun="legality check",
        ),
        Svc(
            "pairing-optimizer", "worker", topic="solve.requests", rps=0.2, p99=90000, noun="solve"
        ),
        Svc("acars-ingest", "worker", topic="acars.downlinks", rps=14, p99=40, noun="downlink"),
        Svc(
            "crew-app-bff",
            "api",
            ("/api/me/roster", "/api/trip-trades", "/api/check-in", "/api/me/hotel"),
            topic="crew-app",
            rps=30,
            p99=450,
            noun="crew request",
        ),
        Svc(
            "layover-hotels",
            "api",
            ("/hotels/bookings", "/hotels/rooming-lists/{station}", "/hotels/contracts"),
            topic="hotels",
            rps=4,
            p99=900,
            noun="booking",
        ),
        Svc(
            "crew-notify", "worker", topic="crew.notifications", rps=6, p99=120, noun="notification"
        ),
    ],
    catalog={
        "roster-api": "crew rosters, pairings, trip trades and the daily roster publication (Crew Systems; Kotlin, Ktor, Exposed on PostgreSQL crewdb); asks legality-engine before accepting any roster change; logback JSON, exception in `stack_trace`",
        "legality-engine": "duty and rest legality (14 CFR Part 117 flight duty periods, minimum rest, cumulative limits) and the optional biomathematical fatigue score (Crew Systems; Scala 3, Akka HTTP, 6 pods, 2 vCPU each); logs the throwable in `throwable`",
        "pairing-optimizer": "nightly pairing and reserve solve per crew base at 02:00 UTC (CP-SAT, OR-Tools), results published by roster-api at 04:30 UTC; solver settings in deploy/pairing-optimizer/values-prod.yaml (Ops Research; Python 3.12)",
        "acars-ingest": "pulls ACARS downlinks (OOOI out/off/on/in times, load sheets, free text) from the AeroLink datalink gateway (gw.aerolink.example, HTTPS long-poll over the site-to-site VPN `vpn-aerolink`) and writes actual block times to crewdb (Ops Systems; Go 1.23)",
        "crew-app-bff": "backend for the crew mobile app: roster view, trip trades, check-in, layover hotel (Crew Experience; TypeScript, NestJS); calls roster-api and layover-hotels",
        "layover-hotels": "layover and disruption hotel rooms for crews through the Roomlane hotel distribution API (api.roomlane.example) and direct contracts; rooming lists per station (Crew Support; Python 3.12, Django)",
        "crew-notify": "push notifications and SMS to crew (roster changes, hotel confirmations, check-in reminders) (Crew Experience; Go)",
        "crewdb": "PostgreSQL 15 (primary + 1 replica), max_connections 400",
        "bases": "crew bases MSP, OMA, DSM, FSD (Central time) and RAP (Mountain time); heavy maintenance at the TUL MRO",
    },
    lang={
        "roster-api": "java",
        "legality-engine": "java",
        "pairing-optimizer": "python",
        "acars-ingest": "go",
        "crew-app-bff": "node",
        "layover-hotels": "python",
        "crew-notify": "go",
    },
    authors=("d.halvorsen", "amara.ude", "pkowalski", "r.tanaka", "mferreira", "renovate[bot]"),
    style=_gerrit,
    strays=[
        ("WARNING", "crew 40718 roster view requested for a pairing already flown (cache miss)"),
        (
            "WARNING",
            "ACARS free-text downlink from N418KR had no flight number; matched by tail and time",
        ),
        (
            "ERROR",
            "payroll export: crew 41102 has 2 open duty periods on 2027-10-31; skipped, ticket opened",
        ),
        ("WARNING", "hotel contract MSP-HX-07 rate expires in 12 days"),
        (
            "ERROR",
            "push to device token ending 4f1a rejected by APNs: BadDeviceToken (app uninstalled)",
        ),
        ("WARNING", "trip trade TT-88120 withdrawn by crew before legality answered"),
    ],
    chatter={
        "roster-api": [
            "roster view served crew=40211 days=14",
            "trip trade TT accepted after legality ok",
        ],
        "legality-engine": [
            "check ok rules=23 elapsed_ms=11",
            "FDP table loaded: Part 117 Table B (unaugmented)",
        ],
        "acars-ingest": [
            "oooi decoded label=QA tail=N407KR event=OFF",
            "poll ok cursor advanced downlinks=9",
        ],
        "crew-app-bff": [
            "[Nest] 1  - LOG [RosterController] GET /api/me/roster 200",
            "[Nest] 1  - LOG [CheckInController] check-in recorded",
        ],
        "layover-hotels": [
            "rooming list sent station=OMA rooms=6",
            "booking confirmed via roomlane",
        ],
        "crew-notify": ["push delivered platform=fcm", "sms delivered carrier=twilio"],
    },
)

COBBLEGATE = Company(
    name="Cobblegate City Parking",
    domain="cobblegate-parking.example",
    services=[
        Svc(
            "paybyphone-api",
            "api",
            (
                "/v1/sessions",
                "/v1/sessions/{id}/extend",
                "/v1/zones/{code}/tariff",
                "/v1/availability",
            ),
            topic="sessions",
            rps=45,
            p99=260,
            noun="session",
        ),
        Svc(
            "permits-portal",
            "web",
            (
                "/permits/apply",
                "/permits/{id}/renew",
                "/permits/{id}/vehicles",
                "/webhooks/payments",
            ),
            topic="permits",
            rps=12,
            p99=700,
            noun="permit",
        ),
        Svc("anpr-ingest", "worker", topic="anpr.reads", rps=60, p99=25, noun="plate read"),
        Svc(
            "pcn-service",
            "api",
            ("/pcns", "/pcns/{ref}/evidence", "/pcns/{ref}/challenge", "/pcns/{ref}/pay"),
            topic="pcns",
            rps=9,
            p99=380,
            noun="pcn",
        ),
        Svc(
            "enforcement-sync",
            "worker",
            topic="handheld-uploads.fifo",
            rps=2,
            p99=300,
            noun="upload",
        ),
        Svc(
            "keeper-lookup",
            "api",
            ("/keeper/{vrm}", "/keeper/batch"),
            topic="keeper",
            rps=3,
            p99=600,
            noun="keeper request",
        ),
        Svc("bay-sensors", "worker", topic="lora.uplinks", rps=14, p99=30, noun="uplink"),
    ],
    catalog={
        "paybyphone-api": "pay-by-phone parking sessions, extensions and zone tariffs; card payments through Tillpoint (acquirer and gateway) (Parking Services; Python 3.12, FastAPI, SQLAlchemy on PostgreSQL parkdb)",
        "permits-portal": "residents' and businesses' permits: applications, renewals, vehicles on a permit, Tillpoint payment webhooks (Permits; PHP 8.3, Laravel 11, Horizon queues)",
        "anpr-ingest": "plate reads from the ANPR cameras of the bus lanes and the controlled zones (Kafka anpr.reads, 12 partitions); matches each plate against valid permits and paid sessions and passes the unmatched to pcn-service (Enforcement; Rust, rdkafka); container limit 2 CPU",
        "pcn-service": "penalty charge notices: drafting, evidence, online challenges and payments (Enforcement; Java 21, Spring Boot, Tomcat)",
        "enforcement-sync": "uploads from the civil enforcement officers' handhelds (PCN drafts, photos) from the SQS FIFO queue handheld-uploads.fifo, one message group per patrol beat (Enforcement; Kotlin, Spring Boot)",
        "keeper-lookup": "registered keeper lookups for PCNs at the Vehicle Records Agency (api.vra.example) (Enforcement; Go)",
        "bay-sensors": "on-street bay occupancy sensors over LoRaWAN (The Things Stack webhooks), upserted into parkdb bay_occupancy, feeding the availability map (Smart Streets; Elixir, Ecto)",
        "parkdb": "PostgreSQL 14 (Cloud SQL), tables parking_sessions, bay_occupancy, tariffs; created 2022",
        "Tillpoint": "card acquirer and payment gateway (api.tillpoint.example); status page status.tillpoint.example",
    },
    lang={
        "paybyphone-api": "python",
        "permits-portal": "php",
        "anpr-ingest": "rust",
        "pcn-service": "java",
        "enforcement-sync": "java",
        "keeper-lookup": "go",
        "bay-sensors": "elixir",
    },
    authors=("h.mcallister", "zainab.q", "ewan.b", "t.lindqvist", "oksana.p", "renovate-bot"),
    style=_gitlab,
    strays=[
        (
            "WARNING",
            "camera CAM-BL-14 read confidence 0.62 below 0.7 for plate read, sent to manual review",
        ),
        ("WARNING", "permit P-220931 renewal reminder bounced (mailbox full)"),
        (
            "ERROR",
            "keeper lookup for VRM with diplomatic prefix refused by VRA: 403 not releasable",
        ),
        ("WARNING", "session extension refused: zone CZ-7 maximum stay 2h reached"),
        ("ERROR", "evidence photo upload retried: S3 SlowDown (attempt 1/5)"),
        ("WARNING", "sensor 70B3D57ED005A1C2 battery 3.1V below 3.2V"),
    ],
    chatter={
        "paybyphone-api": [
            'INFO:     10.4.1.22:51244 - "POST /v1/sessions HTTP/1.1" 201 Created',
            "session started zone=CZ-3 duration=60m",
        ],
        "permits-portal": [
            "[production.INFO] Permit application submitted",
            "[production.INFO] Horizon: App\\Jobs\\SendRenewalReminder processed",
        ],
        "anpr-ingest": [
            "INFO anpr_ingest::matcher: read matched source=permit",
            "INFO anpr_ingest::consumer: committed offsets partition=4",
        ],
        "pcn-service": ["PCN drafted from ANPR read", "challenge received, case opened"],
        "enforcement-sync": ["upload processed beat=SOUTH-2", "photo stored in evidence bucket"],
        "keeper-lookup": ['level=info msg="keeper found" source=vra dur_ms=420'],
        "bay-sensors": ["[info] uplink decoded fport=2 occupied=true", "[info] occupancy upserted"],
    },
)


# --- added by a tenth examiner (held-out split only: evals/rca/ext/heldout10.py) ------------------


def _signed_off(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    who = r.choice(["Ines Corrigan", "Bartek Lis", "Femi Adeyemi", "Hollis Grey"])
    mail = who.lower().replace(" ", ".")
    return (
        f"{body[0].upper()}{body[1:]}\n\nSigned-off-by: {who} <{mail}@ashcombe-waterways.example>"
    )


def _refs(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    return f"{body[0].upper()}{body[1:]} (refs #{r.randint(2100, 4800)})"


ASHCOMBE = Company(
    name="Ashcombe Waterways",
    domain="ashcombe-waterways.example",
    services=[
        Svc(
            "lockage-scheduler",
            "api",
            ("/v1/passages", "/v1/locks/{lockId}/queue", "/v1/locks/{lockId}/cycles", "/v1/slots"),
            topic="passages",
            rps=18,
            p99=240,
            noun="passage",
        ),
        Svc(
            "skipper-portal",
            "web",
            ("/bookings", "/bookings/{ref}", "/licences/{eni}", "/notices"),
            topic="portal",
            rps=25,
            p99=520,
            noun="booking",
        ),
        Svc("ais-ingest", "worker", topic="ais.nmea", rps=140, p99=15, noun="AIS sentence"),
        Svc(
            "gate-control-bridge",
            "worker",
            topic="plc.commands",
            rps=3,
            p99=900,
            noun="gate command",
        ),
        Svc(
            "level-telemetry",
            "worker",
            topic="gauges.readings",
            rps=60,
            p99=40,
            noun="gauge reading",
        ),
        Svc(
            "licence-billing",
            "api",
            ("/licences", "/licences/{eni}/tolls", "/invoices/{no}"),
            topic="billing",
            rps=6,
            p99=400,
            noun="licence",
        ),
        Svc(
            "notices-publisher", "worker", topic="notices.outbox", rps=0.5, p99=1200, noun="notice"
        ),
    ],
    catalog={
        "lockage-scheduler": "lock passage bookings, chamber fitting (vessel length and beam against the chamber) and the lock-keeper queue per lock, cycle timing (Lock Operations; Java 21, Spring Boot, Hibernate on PostgreSQL waterdb); reads hull data through the shared library aw-registry-client; sends gate commands to gate-control-bridge",
        "skipper-portal": "the skippers' and boat owners' site: passage bookings, licences, Notices to Skippers (Customer Services; TypeScript, Next.js); calls lockage-scheduler and licence-billing",
        "ais-ingest": "AIS AIVDM sentences from the shore receivers (NMEA over TCP from the base stations), decoded positions of vessels approaching locks, published to the lock queues (Vessel Traffic; Go 1.23)",
        "gate-control-bridge": "gate, paddle and sluice commands to the lock PLCs through the SCADA Modbus TCP gateway scada-gw-1 (maximum 16 client connections); reports cycle completion (OT Integration; Python 3.11, pymodbus)",
        "level-telemetry": "pound and reservoir level gauges every 30 s, written to TimescaleDB tsdb-levels (EBS gp2 volume) and checked against the navigation limits (Water Management; Rust, tokio-postgres)",
        "licence-billing": "boat licences, passage tolls, the nightly toll invoice run (CronJob toll-invoice-run) (Finance Systems; Ruby 3.3, Rails 7.1 on PostgreSQL waterdb)",
        "notices-publisher": "Notices to Skippers (stoppages, restrictions, water levels) as NtS XML to the national River Information Services gateway (ris-gw.waterways-authority.example) and to skipper-portal (Vessel Traffic; Elixir, Broadway)",
        "aw-registry-client": "shared Java library (Platform): the national hull registry client (ENI numbers, length, beam, draught); used by lockage-scheduler and licence-billing's JRuby importer",
        "waterdb": "PostgreSQL 15 primary + replica, tables passages, licences, toll_invoices, lock_queue",
        "locks": "19 locks on the Ashcombe and Vale navigations; locks 12-15 (Hartsmoor flight) are remote-operated over a radio link",
    },
    lang={
        "lockage-scheduler": "java",
        "skipper-portal": "node",
        "ais-ingest": "go",
        "gate-control-bridge": "python",
        "level-telemetry": "rust",
        "licence-billing": "ruby",
        "notices-publisher": "elixir",
        "aw-registry-client": "java",
    },
    authors=("i.corrigan", "bartek.lis", "f.adeyemi", "hollis.g", "nadia.r", "dependabot[bot]"),
    style=_signed_off,
    strays=[
        ("WARNING", "AIS type 5 from MMSI 244690123 has no ENI in the static data"),
        ("WARNING", "lock 7 cycle took 24m (target 18m): keeper held the bottom gates"),
        ("ERROR", "gauge G-VALE-04 reading out of range (-9999.0), dropped"),
        ("WARNING", "booking ABK-88312 cancelled by skipper less than 1h before the slot"),
        ("ERROR", "licence renewal email to owner bounced: 550 mailbox unavailable"),
        ("WARNING", "pound P-11 level 3 cm below the navigation limit for 2 readings"),
    ],
    chatter={
        "lockage-scheduler": [
            "passage booked lock=L09 direction=UP slot=14:20",
            "cycle completed lock=L04 duration=16m vessels=2",
        ],
        "ais-ingest": [
            "decoded AIVDM type=1 mmsi=244670512 sog=4.1",
            "receiver RX-VALE-2 connected",
        ],
        "gate-control-bridge": [
            "command ack lock=L11 gate=TOP_LEFT action=OPEN",
            "paddle closed lock=L03 side=BOTTOM",
        ],
        "level-telemetry": [
            "INFO level_telemetry::writer: batch written rows=120",
            "INFO level_telemetry::check: pounds within limits",
        ],
        "licence-billing": ["Completed 200 OK in 41ms (Views: 2.1ms | ActiveRecord: 18.7ms)"],
        "notices-publisher": [
            "[info] notice NtS-2027-0412 delivered to RIS",
            "[info] outbox empty",
        ],
    },
)

QUILLSTONE = Company(
    name="Quillstone Press",
    domain="quillstone-press.example",
    services=[
        Svc(
            "order-intake",
            "api",
            ("/api/orders", "/api/orders/{id}", "/api/edi/orders", "/api/orders/{id}/status"),
            topic="orders",
            rps=22,
            p99=300,
            noun="order",
        ),
        Svc("onix-ingest", "worker", topic="onix.feeds", rps=4, p99=2500, noun="ONIX product"),
        Svc("preflight", "worker", topic="preflight.jobs", rps=2, p99=40000, noun="preflight job"),
        Svc("imposition", "worker", topic="impose.jobs", rps=1.5, p99=8000, noun="imposition"),
        Svc(
            "press-queue",
            "api",
            ("/queue", "/presses/{pressId}/jobs", "/jobs/{id}/done", "/hotfolders/{name}"),
            topic="press",
            rps=8,
            p99=350,
            noun="press job",
        ),
        Svc(
            "shipping-labels",
            "api",
            ("/labels", "/labels/{id}.pdf", "/manifests/{date}"),
            topic="shipping",
            rps=9,
            p99=700,
            noun="label",
        ),
        Svc(
            "publisher-dashboard",
            "web",
            ("/titles", "/titles/{isbn}", "/reports/sales", "/reports/export"),
            topic="dashboard",
            rps=12,
            p99=900,
            noun="report",
        ),
    ],
    catalog={
        "order-intake": "print orders from retailers and distributors (EDI and REST), ISBN and title lookup, routing to a print site (Order Management; C# .NET 8, ASP.NET Core, EF Core on SQL Server ordersdb)",
        "onix-ingest": "ONIX 3.0 title metadata from publishers (trim size, extent, paper, binding) into the title catalogue (Metadata; Java 21)",
        "preflight": "PDF checks on interiors and covers: fonts embedded, trim and bleed, image resolution, ICC output intent; runs qpdf and Ghostscript as child processes (Prepress; Python 3.12, Celery on RabbitMQ queue preflight.jobs, one message at a time per worker)",
        "imposition": "lays pages on press sheets, computes the spine width from extent and paper caliper, writes JDF job tickets (Prepress; Go 1.22)",
        "press-queue": "press scheduling for the four inkjet presses and the perfect binder, drops jobs into the RIP hot folders on the NAS (nas-prepress-01, NFS v4.1 mounted at /mnt/hotfolders) (Production; Kotlin, Spring Boot)",
        "shipping-labels": "carrier labels and manifests through the ParcelRoute API (api.parcelroute.example, OAuth2 client credentials) (Fulfilment; PHP 8.3, Symfony)",
        "publisher-dashboard": "publishers' site: titles, print orders, sales reports and exports (Publisher Services; Node, Next.js); reads ordersdb's reporting replica",
        "ordersdb": "SQL Server 2022, Always On availability group with a readable secondary for reports",
        "binder": "perfect binder PB-2 reports cover misfits (spine too narrow or too wide by more than 0.3 mm) to press-queue",
    },
    lang={
        "order-intake": "csharp",
        "onix-ingest": "java",
        "preflight": "python",
        "imposition": "go",
        "press-queue": "java",
        "shipping-labels": "php",
        "publisher-dashboard": "node",
    },
    authors=("c.obrien", "yuki.m", "p.santos", "gwen.h", "arjun.k", "renovate[bot]"),
    style=_refs,
    strays=[
        ("WARNING", "ONIX product 9781915000112 has no <Extent> of type 00; extent taken from PDF"),
        ("WARNING", "preflight: image on page 212 is 240 ppi (minimum 300), publisher notified"),
        ("ERROR", "EDI 850 from distributor GZ-DIST rejected: unknown ship-to GLN 5012345000017"),
        ("WARNING", "press P3 paused by operator (paper roll change)"),
        ("ERROR", "label void request for shipment QS-771203 refused: already manifested"),
        ("WARNING", "report export for publisher 1184 took 38s"),
    ],
    chatter={
        "order-intake": [
            "order accepted isbn=9781800234561 qty=40 site=BRISTOL",
            "EDI 855 acknowledgement sent",
        ],
        "preflight": [
            "preflight passed pages=312 fonts=7 intent=FOGRA51",
            "task preflight.check succeeded in 8.2s",
        ],
        "imposition": ['level=info msg="imposed" pages=248 sheets=31 spine_mm=14.5'],
        "press-queue": [
            "job scheduled press=P2 copies=120",
            "hot folder drop ok folder=P2-interior",
        ],
        "shipping-labels": [
            'app.INFO: Label created {"carrier":"parcelroute","service":"NEXTDAY"}'
        ],
        "publisher-dashboard": ["GET /titles 200", "export ready report=sales-monthly"],
    },
)


# --- added by a ninth examiner (tune split only: evals/rca/ext/tune9.py) -------------------------


def _skerrylight_signed_off(r: random.Random, text: str) -> str:
    """Skerrylight: a plain imperative subject with a ticket and a DCO trailer (mailing-list
    habits of the ground-software team)."""
    body = text.split(": ", 1)[-1]
    who = r.choice(["Ingrid Solbakken", "Mateo Carrizo", "Yusuf Demir", "Aroha Ngata"])
    mail = who.lower().replace(" ", ".")
    return (
        f"{body[0].upper()}{body[1:]}\n\nTicket: GSN-{r.randint(310, 990)}\n"
        f"Signed-off-by: {who} <{mail}@skerrylight.example>"
    )


def _closes(r: random.Random, text: str) -> str:
    """Proscenium: squash-merged subjects with a GitHub closing keyword in the body."""
    body = text.split(": ", 1)[-1]
    return f"{body[0].upper()}{body[1:]}\n\nCloses #{r.randint(2100, 4800)}"


SKERRYLIGHT = Company(
    name="Skerrylight Ground Network",
    domain="skerrylight.example",
    services=[
        Svc(
            "contact-planner",
            "api",
            ("/v1/contacts", "/v1/contacts/{id}/pointing", "/v1/passes/predict", "/v1/windows"),
            topic="planning",
            rps=8,
            p99=420,
            noun="contact",
        ),
        Svc(
            "elements-sync",
            "worker",
            topic="elements.refresh",
            rps=0.5,
            p99=2500,
            noun="element set",
        ),
        Svc("antenna-ctl", "worker", topic="acu.commands", rps=20, p99=35, noun="track"),
        Svc("frame-sync", "worker", topic="modem.cadu", rps=300, p99=15, noun="cadu"),
        Svc(
            "delivery-api",
            "api",
            (
                "/v2/products",
                "/v2/products/{id}/deliveries",
                "/v2/subscriptions",
                "/v2/webhooks/test",
            ),
            topic="delivery",
            rps=12,
            p99=650,
            noun="product",
        ),
        Svc(
            "ops-console",
            "web",
            ("/schedule", "/contacts/{id}", "/sites/{site}", "/api/alarms"),
            topic="ops",
            rps=6,
            p99=300,
            noun="view",
        ),
        Svc("tlm-archive", "worker", topic="tlm.housekeeping", rps=80, p99=60, noun="frame batch"),
    ],
    catalog={
        "contact-planner": "books customer satellite contacts (passes) on our antennas and computes each contact's pointing table (azimuth/elevation every second from AOS to LOS) with the shared package skl-astro (SGP4 propagation from the latest element set) (Flight Dynamics; Python 3.12, FastAPI, PostgreSQL plandb); publishes tables to antenna-ctl 10 minutes before AOS",
        "elements-sync": "pulls the customers' element sets (TLE and CCSDS OMM) from OrbitCat every 30 min and from customers' own uploads, writes them to plandb.elements (Flight Dynamics; Go 1.22)",
        "antenna-ctl": "runs each contact on a site's antenna control unit (ACU): slews to AOS, program-tracks the pointing table, switches the RF chain, reports carrier lock and Eb/N0 (Ground Segment; Rust, tokio; one instance per site)",
        "frame-sync": "receives CADUs from the site modems over TCP, frame-synchronises, Reed-Solomon decodes and derandomises, writes VCDUs to the raw bucket and closes each contact with its frame counts (Ground Segment; Go 1.22)",
        "delivery-api": "assembles customers' payload products (raw and level-0 files per contact) and delivers them to the customers' own S3-compatible buckets (multipart upload) and webhooks (Customer Platform; Java 21, Spring Boot 3, AWS SDK v2)",
        "ops-console": "the operators' console: schedule, live contacts, site alarms (Customer Platform; TypeScript, Next.js)",
        "tlm-archive": "stores the customers' housekeeping telemetry in ClickHouse (Ground Segment; Elixir)",
        "skl-astro": "shared Python package (Flight Dynamics): TLE/OMM parsing, SGP4 propagation, look angles; released to the internal index, pinned by contact-planner",
        "sites": "Havnoy (HVN, Norway 69.6N, antennas HVN-1..3, 7.3 m S/X band), Puerto Tala (PTA, Chile 52.9S, PTA-1..2), Kerrow Point (KRP, Australia 31.8S, KRP-1); site LAN, modems and ACUs on each site's UPS",
        "OrbitCat": "public catalogue of element sets (api.orbitcat.example/v3/gp); status page status.orbitcat.example",
        "customers": "LUMEN-7 and LUMEN-8 (optical, 0.8-1.5 GB per contact, X band), KESTRA-SAR2 (radar, 9-14 GB per contact), AURORA-3 (AIS and weather, S band, small files)",
    },
    lang={
        "contact-planner": "python",
        "elements-sync": "go",
        "antenna-ctl": "rust",
        "frame-sync": "go",
        "delivery-api": "java",
        "ops-console": "node",
        "tlm-archive": "elixir",
        "skl-astro": "python",
    },
    authors=("i.solbakken", "mcarrizo", "yusuf.demir", "aroha.n", "bjorn.lie", "renovate[bot]"),
    style=_skerrylight_signed_off,
    strays=[
        ("WARNING", "ACU HVN-2 azimuth motor current 4.1 A above 3.8 A during slew, within limit"),
        (
            "WARNING",
            "contact c-88102 AOS 6 s late: elevation mask at PTA-1 (terrain) reached later than predicted",
        ),
        (
            "ERROR",
            "webhook delivery to customer endpoint hooks.lumen.example failed: 502, retry 1/5 in 60s",
        ),
        ("WARNING", "element set for AURORA-3 is 26h old (customer upload pending)"),
        (
            "WARNING",
            "modem HVN-2-M1 Eb/N0 8.9 dB below 10 dB at low elevation, frames still decoding",
        ),
        ("ERROR", "ClickHouse insert retried: Code: 252 TOO_MANY_PARTS on tlm_hk, backing off 1s"),
    ],
    chatter={
        "contact-planner": [
            "pointing table published contact=c-88140 site=HVN antenna=HVN-1 points=612",
            "pass prediction served norad=58211 passes=5",
        ],
        "elements-sync": [
            'level=INFO msg="elements refreshed" source=orbitcat sets=14 newest_epoch_age=3h12m',
        ],
        "antenna-ctl": [
            "INFO antenna_ctl::track: contact c-88131 LOS, carrier lock 97.8% of pass",
            "INFO antenna_ctl::acu: HVN-3 stowed, wind 6 m/s",
        ],
        "frame-sync": [
            'level=INFO msg="contact closed" contact=c-88127 cadus=1843221 rs_uncorrectable=0',
        ],
        "delivery-api": [
            "Product delivered product=p-51802 customer=lumen bytes=1203847112 parts=18",
            "Webhook acknowledged customer=aurora event=product.ready",
        ],
        "tlm-archive": ["[info] inserted rows=4096 table=tlm_hk"],
    },
)

PROSCENIUM = Company(
    name="Proscenium Box Office",
    domain="proscenium.example",
    services=[
        Svc(
            "seatmap-api",
            "api",
            (
                "/v1/performances/{id}/seatmap",
                "/v1/performances/{id}/availability",
                "/v1/venues/{id}",
            ),
            topic="seatmaps",
            rps=90,
            p99=140,
            noun="seat map",
        ),
        Svc(
            "hold-service",
            "api",
            ("/holds", "/holds/{id}", "/holds/{id}/extend", "/holds/{id}/confirm"),
            topic="holds",
            rps=25,
            p99=60,
            noun="hold",
        ),
        Svc(
            "checkout",
            "web",
            ("/basket", "/checkout/details", "/checkout/payment", "/orders/{ref}"),
            topic="orders",
            rps=18,
            p99=900,
            noun="order",
        ),
        Svc(
            "waiting-room",
            "api",
            ("/queue/join", "/queue/status", "/queue/admit"),
            topic="onsale",
            rps=40,
            p99=80,
            noun="queue ticket",
        ),
        Svc(
            "pricing-engine", "worker", topic="pricing.recompute", rps=3, p99=1800, noun="price run"
        ),
        Svc("ticket-issuer", "worker", topic="orders.paid", rps=4, p99=1200, noun="e-ticket"),
        Svc(
            "door-scan",
            "api",
            ("/api/scanners/sync", "/api/scans", "/api/scanners/{id}/heartbeat"),
            topic="doors",
            rps=10,
            p99=90,
            noun="scan",
        ),
    ],
    catalog={
        "seatmap-api": "seat maps of each performance with live availability and prices; renders from venue layouts in boxdb and caches the rendered map in Redis (seatmap-cache) (Web; Go 1.22, pgx)",
        "hold-service": "seat holds while a customer checks out: a hold lasts 10 minutes and can be extended once; Redis keys hold:{id} carry the TTL, PostgreSQL boxdb.holds keeps the record (Ticketing Core; Java 21, Spring Boot 3, Lettuce)",
        "checkout": "basket, customer details, payment and orders (Ticketing Core; Ruby 3.3, Rails 7.1 on Puma, PostgreSQL boxdb); confirms holds with hold-service; card payments through Paywick",
        "waiting-room": "virtual queue in front of on-sales: visitors join, get a position and are admitted to seat selection at a fixed rate per performance (Web; Node 20, TypeScript, Fastify, Redis)",
        "pricing-engine": "dynamic prices per section and price band, recomputed from sales pace for every on-sale performance (Revenue; Python 3.12, RQ workers); writes price bands to boxdb",
        "ticket-issuer": "e-tickets after payment: PDF, Apple and Google wallet passes with rotating barcodes, emailed through Postvale (Fulfilment; PHP 8.3, Symfony Messenger)",
        "door-scan": "venue door scanners: scanners sync the barcodes of the night's performances and upload scans (Venue Ops; Elixir, Phoenix)",
        "boxdb": "PostgreSQL 15 (primary + replica), created 2016 when the house moved off its old box-office system",
        "Paywick": "card processor and 3-D Secure server (api.paywick.example); status page status.paywick.example",
        "venues": "the Lyric, the Albany Playhouse, the Corn Exchange and the Riverside Studio; evening performances 19:30 local (Europe/London)",
    },
    lang={
        "seatmap-api": "go",
        "hold-service": "java",
        "checkout": "ruby",
        "waiting-room": "node",
        "pricing-engine": "python",
        "ticket-issuer": "php",
        "door-scan": "elixir",
    },
    authors=(
        "g.ashdown",
        "priya.kaul",
        "tobi.adeyemi",
        "m.szabo",
        "ffion.price",
        "dependabot[bot]",
    ),
    style=_closes,
    strays=[
        ("WARNING", "hold h_8812093 extended twice; second extension refused"),
        (
            "WARNING",
            "seat map for performance 77120 rendered with 3 seats missing a price band (restricted view)",
        ),
        ("ERROR", "Postvale: message to customer mailbox rejected 550 5.1.1 user unknown"),
        ("WARNING", "scanner LYR-DOOR-4 battery at 9%"),
        ("ERROR", "Paywick: card declined code=05 do_not_honour order=PB-4471921"),
        (
            "WARNING",
            "waiting-room: visitor rejoined with an expired queue token, placed at the back",
        ),
    ],
    chatter={
        "seatmap-api": [
            'level=info msg="seatmap served" performance=77102 cache=hit dur_ms=6',
            'level=info msg="seatmap served" performance=77140 cache=hit dur_ms=4',
        ],
        "hold-service": [
            "Hold created seats=2 performance=77102 ttl=PT10M",
            "Hold confirmed order=PB-4471880",
        ],
        "checkout": [
            "Completed 200 OK in 212ms (Views: 31.0ms | ActiveRecord: 12.4ms | Allocations: 40211)",
            'Started POST "/checkout/payment" for 10.8.2.41',
        ],
        "waiting-room": ['{"msg":"admitted batch","performance":77140,"admitted":50}'],
        "pricing-engine": ["price run done performance=77140 bands=6 changed=0"],
        "ticket-issuer": [
            "[info] messenger.INFO: Message App\\Message\\IssueTickets handled by App\\Handler\\IssueTicketsHandler"
        ],
        "door-scan": ["[info] scanner LYR-DOOR-2 synced barcodes=1380"],
    },
)


# --- the eleventh examiner's companies ------------------------------------------------------------


def _clinic_area(r: random.Random, text: str) -> str:
    """Pawmeadow: ``(area) Subject`` with a ticket in the body."""
    body = text.split(": ", 1)[-1]
    area = r.choice(["clinic-ops", "platform", "records", "client-comms"])
    return f"({area}) {body[0].upper()}{body[1:]}\n\nTicket: PMV-{r.randint(1200, 3900)}"


def _linenfold_hash(r: random.Random, text: str) -> str:
    """Linenfold: a lower-case subject ending in the work item, as their Azure-less board
    exports it: ``subject -- #1234``."""
    body = text.split(": ", 1)[-1]
    return f"{body[0].lower()}{body[1:]} -- #{r.randint(400, 1900)}"


def _liftwright_ticket(r: random.Random, text: str) -> str:
    """Liftwright: ``LW#123: Subject`` (their tracker's short keys)."""
    body = text.split(": ", 1)[-1]
    return f"LW#{r.randint(100, 990)}: {body[0].upper()}{body[1:]}"


def _ketterbrook_mr(r: random.Random, text: str) -> str:
    """Ketterbrook: GitLab squash subjects with the merge request in the body."""
    body = text.split(": ", 1)[-1]
    return (
        f"{body[0].upper()}{body[1:]}\n\nSee merge request brewing/platform!{r.randint(200, 900)}"
    )


PAWMEADOW = Company(
    name="Pawmeadow Veterinary Group",
    domain="pawmeadow.example",
    services=[
        Svc(
            "appointments-api",
            "api",
            ("/api/v2/slots", "/api/v2/bookings", "/api/v2/bookings/{id}", "/api/v2/clinics"),
            topic="bookings",
            rps=35,
            p99=220,
            noun="booking",
        ),
        Svc(
            "patient-records",
            "api",
            ("/records/patients/{id}", "/records/patients/{id}/history", "/records/visits"),
            topic="visits",
            rps=28,
            p99=260,
            noun="patient",
        ),
        Svc("lab-results-ingest", "worker", topic="lab.oru", rps=2.5, p99=400, noun="result"),
        Svc(
            "pharmacy-dispense",
            "web",
            ("/dispensing/new", "/dispensing/{id}", "/register/controlled", "/stock/{sku}"),
            topic="dispensing",
            rps=6,
            p99=500,
            noun="dispensing",
        ),
        Svc("reminders-worker", "worker", topic="reminders.due", rps=4, p99=900, noun="reminder"),
        Svc(
            "clinic-pos",
            "web",
            ("/pos/invoices", "/pos/invoices/{id}/pay", "/pos/claims", "/pos/estimates"),
            topic="invoices",
            rps=9,
            p99=700,
            noun="invoice",
        ),
        Svc("imaging-bridge", "worker", topic="dicom.studies", rps=0.8, p99=3000, noun="study"),
    ],
    catalog={
        "appointments-api": "online and front-desk booking of consultations, vaccinations and surgery slots for the 41 clinics (Client Experience; C# .NET 8, EF Core, SQL Server pmdb-bookings)",
        "patient-records": "the clinical record: patients (animals), owners, visits, weights, vaccinations, lab results (Clinical Systems; Java 21, Spring Boot, PostgreSQL pmdb)",
        "lab-results-ingest": "receives HL7 v2.5 ORU^R01 lab results over MLLP from Corralis Diagnostics (the reference lab) and the in-clinic analysers, acknowledges each with an ACK, files the results into patient-records (Clinical Systems; Go 1.22)",
        "pharmacy-dispense": "dispensing of medicines at the clinic counter and the controlled-drug register (Schedule 2/3 balances must match stock to the 0.01 ml); uses the shared pm-units gem for dose arithmetic (Clinical Systems; Ruby 3.3, Rails 7.1)",
        "reminders-worker": "vaccination, flea/worm and check-up reminders to owners by SMS through Chirrup (api.chirrup.example, bulk endpoint) and by email (Client Experience; Node 20, TypeScript, BullMQ on Redis)",
        "clinic-pos": "invoices, payments and direct pet-insurance claims to Furlong Pet Insurance (claims.furlong.example, mutual TLS) (Finance; PHP 8.3, Laravel)",
        "imaging-bridge": "forwards radiographs and ultrasound studies from the clinics' modalities to the central PACS over DICOMweb STOW-RS (Clinical Systems; Rust, tokio, reqwest)",
        "pm-units": "shared Ruby gem: dose and volume arithmetic (mg/kg, ml, tablets) used by pharmacy-dispense and patient-records' dosing calculator",
        "Corralis Diagnostics": "reference laboratory; results over MLLP to mllp.corralis.example:2575; status page status.corralis.example",
        "clinics": "41 clinics in the UK (Europe/London), open 08:00-19:00, two 24-hour emergency hospitals (Bristol, Leeds)",
    },
    lang={
        "appointments-api": "csharp",
        "patient-records": "java",
        "lab-results-ingest": "go",
        "pharmacy-dispense": "ruby",
        "reminders-worker": "node",
        "clinic-pos": "php",
        "imaging-bridge": "rust",
    },
    authors=(
        "r.mahoney",
        "anjali.desai",
        "tom.brennan",
        "eilidh.macrae",
        "kwame.boateng",
        "dependabot[bot]",
    ),
    style=_clinic_area,
    strays=[
        ("WARNING", "booking b-559120 double-submitted from the owner app; second request ignored"),
        ("WARNING", "patient weight 0.0 kg ignored for patient P-228190 (nurse typo?)"),
        (
            "ERROR",
            "Chirrup: message to +44 7700 900412 rejected: number is a landline (code 21614)",
        ),
        ("WARNING", "analyser CLN-BRS-VETSCAN-2 sent a result for an unknown accession A-77120"),
        ("ERROR", "clinic-pos: card terminal BRS-T3 timed out waiting for customer PIN"),
        (
            "WARNING",
            "DICOM study 1.2.826.0.1.3680043.8.498.10221 has no patient id tag, parked for review",
        ),
    ],
    chatter={
        "appointments-api": [
            "Booking created clinic=BRS-02 slot=2028-04-11T10:20 type=vaccination",
            "Slots served clinic=LDS-01 date=2028-04-11 free=17",
        ],
        "patient-records": ["Visit closed visit=V-9912033 clinician=vs-0412 items=4"],
        "lab-results-ingest": [
            'level=INFO msg="ORU^R01 filed" sender=CORRALIS control_id=CRL48812091 obx=14 ack=AA',
            'level=INFO msg="ORU^R01 filed" sender=VETSCAN-BRS-2 control_id=VS0091221 obx=9 ack=AA',
        ],
        "pharmacy-dispense": [
            "Completed 200 OK in 184ms (Views: 22.4ms | ActiveRecord: 41.0ms | Allocations: 31002)",
            "Dispensing D-4410291 recorded sku=MELOX-1.5-10ML qty=2.4ml",
        ],
        "reminders-worker": [
            '{"level":30,"msg":"reminder batch sent","channel":"sms","recipients":100,"accepted":100}'
        ],
        "clinic-pos": [
            "[2028-04-11] production.INFO: Invoice INV-3312091 paid by card amount=84.20"
        ],
        "imaging-bridge": [
            "INFO imaging_bridge::stow: stored study 1.2.826.0.1.3680043.8.498.11872 instances=6 in 2.1s"
        ],
    },
)

LINENFOLD = Company(
    name="Linenfold Laundry Services",
    domain="linenfold.example",
    services=[
        Svc("rfid-gateway", "worker", topic="rfid.reads", rps=60, p99=40, noun="tag read"),
        Svc("tunnel-control", "worker", topic="tunnel.batches", rps=1.5, p99=600, noun="batch"),
        Svc(
            "route-planner",
            "api",
            ("/routes/today", "/routes/{id}/stops", "/routes/optimise", "/vans/{reg}"),
            topic="routes",
            rps=8,
            p99=900,
            noun="route",
        ),
        Svc(
            "customer-portal",
            "web",
            ("/orders", "/orders/{id}", "/par-levels", "/invoices"),
            topic="orders",
            rps=12,
            p99=450,
            noun="order",
        ),
        Svc("par-levels", "worker", topic="cart.counts", rps=3, p99=300, noun="cart"),
        Svc("billing-run", "worker", topic="billing.items", rps=2, p99=2000, noun="invoice line"),
        Svc("chem-dosing", "worker", topic="dosing.events", rps=1, p99=80, noun="dose"),
    ],
    catalog={
        "rfid-gateway": "UHF RFID portals at the soil dock and clean dock of both plants (Leeds, Wakefield): reads every tagged item in a cart, de-duplicates reads, decodes SGTIN-96 EPCs and publishes cart counts (Plant Systems; Go, Kafka)",
        "tunnel-control": "tunnel washer batch control: picks the wash recipe per batch (hospital thermal disinfection, hotel, kitchen) and writes it to the tunnel PLC over OPC UA (Plant Systems; Python 3.12, asyncua); runs on the plant's edge servers",
        "route-planner": "daily delivery routes and van loads for 120 customers (hospitals, hotels, care homes) (Logistics; Java 21, Spring Boot, OptaPlanner, Caffeine caches)",
        "customer-portal": "customer orders, par levels, invoices (Customer; Node 20, Next.js)",
        "par-levels": "compares clean cart counts to each ward's or hotel floor's par level and raises top-up orders (Customer; Elixir, Broadway on Kafka cart.counts)",
        "billing-run": "per-item billing from soil counts (items in) and clean counts (items out) (Finance; C# .NET 8, nightly and hourly runs)",
        "chem-dosing": "detergent and disinfectant dosing pumps per tunnel (Plant Systems; Rust)",
        "linendb": "PostgreSQL 16 (primary + replica) shared by route-planner, customer-portal, par-levels and billing-run",
        "plants": "Leeds (2 tunnels) and Wakefield (1 tunnel); edge servers lf-lds-edge-01/02 and lf-wkf-edge-01 run k3s",
    },
    lang={
        "rfid-gateway": "go",
        "tunnel-control": "python",
        "route-planner": "java",
        "customer-portal": "node",
        "par-levels": "elixir",
        "billing-run": "csharp",
        "chem-dosing": "rust",
    },
    authors=("dave.hirst", "sunita.patel", "gareth.lowe", "beata.nowak", "renovate[bot]"),
    style=_linenfold_hash,
    strays=[
        ("WARNING", "portal LDS-SOIL-2 antenna 3 return loss high (-6.1 dB), check cable"),
        ("WARNING", "cart C-10442 read with 4 foreign tags (other laundry's EPC prefix), ignored"),
        ("ERROR", "van YX71 KLM telematics ping missing for 11 min"),
        ("WARNING", "tunnel T2 compartment 7 temperature 1.2 C below setpoint for 40 s"),
        ("WARNING", "par level for ward W-12 (St Aidan's) not set for item type DRAWSHEET"),
    ],
    chatter={
        "rfid-gateway": [
            'level=info msg="cart counted" portal=LDS-SOIL-1 cart=C-10318 items=212 reads=1840 dur=4.1s',
            'level=info msg="cart counted" portal=WKF-CLEAN-1 cart=C-20977 items=176 reads=1412 dur=3.7s',
        ],
        "tunnel-control": [
            "batch B-7731201 loaded tunnel=LDS-T1 recipe=HOSP-THERMAL-71 weight_kg=48.2"
        ],
        "route-planner": ["Route R-LDS-07 optimised stops=14 distance_km=88.4 in 1.9s"],
        "par-levels": [
            "[info] cart C-20977 counted for St Aidan's ward W-04: 176 items, par 180, top-up 4"
        ],
        "billing-run": ["info: Billing.Run[0] hourly run finished lines=4412 customers=37"],
        "chem-dosing": [
            "INFO chem_dosing: LDS-T1 dosed alkali 410 ml disinfectant 95 ml batch=B-7731188"
        ],
    },
)

LIFTWRIGHT = Company(
    name="Liftwright Elevator Services",
    domain="liftwright.example",
    services=[
        Svc("telemetry-ingest", "worker", topic="controller.frames", rps=140, p99=30, noun="frame"),
        Svc(
            "entrapment-line",
            "api",
            ("/v1/alarms", "/v1/alarms/{id}/ack", "/v1/calls/route"),
            topic="alarms",
            rps=3,
            p99=250,
            noun="alarm",
        ),
        Svc(
            "dispatch",
            "api",
            ("/jobs", "/jobs/{id}/assign", "/technicians/{id}/location", "/jobs/{id}/eta"),
            topic="jobs",
            rps=20,
            p99=300,
            noun="job",
        ),
        Svc(
            "work-orders",
            "web",
            ("/work_orders", "/work_orders/{id}", "/inspections/{id}/report"),
            topic="work_orders",
            rps=7,
            p99=600,
            noun="work order",
        ),
        Svc(
            "parts-stock",
            "api",
            ("/api/parts", "/api/parts/{sku}/reserve"),
            topic="parts",
            rps=5,
            p99=200,
            noun="part",
        ),
        Svc(
            "owner-portal",
            "web",
            ("/buildings", "/buildings/{id}/lifts", "/reports/uptime"),
            topic="owners",
            rps=10,
            p99=500,
            noun="building",
        ),
        Svc("firmware-rollout", "worker", topic="firmware.waves", rps=0.5, p99=5000, noun="wave"),
    ],
    catalog={
        "telemetry-ingest": "status frames from 9,300 lift controllers (door cycles, trips, faults, heartbeats every 60 s) over MQTT via an IoT SIM APN, into Kafka controller.frames and TimescaleDB (Connected Lifts; Go)",
        "entrapment-line": "entrapment alarms: a controller's alarm button or a stuck-car fault opens an alarm, routes the call to the 24/7 rescue desk or the building's own out-of-hours contact, and tracks the rescue (Rescue; Java 21, Spring Boot)",
        "dispatch": "assigns breakdown and rescue jobs to the nearest qualified technician from their van's location (Field Service; Python 3.12, FastAPI, SQLAlchemy, PostgreSQL lwdb)",
        "work-orders": "maintenance visits, LOLER thorough-examination reports, repair quotes (Field Service; Ruby 3.3, Rails 7.1)",
        "parts-stock": "van and depot stock of spare parts, reservations for jobs (Supply; C# .NET 8)",
        "owner-portal": "building owners' view of their lifts, uptime and reports (Customer; Node 20, Next.js)",
        "firmware-rollout": "controller firmware updates in waves by model and hardware revision (Connected Lifts; Rust)",
        "Tellicore IoT": "the IoT SIM and private APN carrier of the controllers' modems (status.tellicore.example)",
        "controllers": "models KX-300 (hardware revs B, C, D) and KX-500; a controller that loses its uplink buffers frames for 6 hours",
    },
    lang={
        "telemetry-ingest": "go",
        "entrapment-line": "java",
        "dispatch": "python",
        "work-orders": "ruby",
        "parts-stock": "csharp",
        "owner-portal": "node",
        "firmware-rollout": "rust",
    },
    authors=(
        "c.oyelaran",
        "helga.sorensen",
        "pete.marsh",
        "yuki.tan",
        "ines.carvalho",
        "renovate[bot]",
    ),
    style=_liftwright_ticket,
    strays=[
        (
            "WARNING",
            "controller KX3-118204 reports door cycle count going backwards (counter reset?)",
        ),
        ("WARNING", "technician T-0442 location stale for 9 min (van in underground car park)"),
        (
            "ERROR",
            "LOLER report WO-88120 PDF render failed: font 'LiftwrightSans' missing, fell back to Helvetica",
        ),
        ("WARNING", "alarm A-551203 acknowledged by building contact without rescue outcome"),
        ("WARNING", "frame from KX5-220871 with clock skew 74 s, timestamp corrected"),
    ],
    chatter={
        "telemetry-ingest": [
            'level=INFO msg="frames flushed" partition=7 frames=4210 lag=12',
            'level=INFO msg="heartbeats" online=9214 offline=86',
        ],
        "entrapment-line": ["Alarm A-551240 closed outcome=RELEASED_BY_TECH duration=PT24M"],
        "dispatch": ["INFO dispatch.assign: job J-772013 assigned to T-0318 eta_min=27"],
        "work-orders": ['Started GET "/work_orders/WO-88133" for 10.40.3.12'],
        "firmware-rollout": [
            "INFO firmware_rollout: wave W-2028-14 KX-500 4.9.2 progress 312/1200"
        ],
    },
)

KETTERBROOK = Company(
    name="Ketterbrook Brewing Co.",
    domain="ketterbrook.example",
    services=[
        Svc("brewlog", "worker", topic="tank.readings", rps=12, p99=90, noun="reading"),
        Svc(
            "keg-tracker",
            "api",
            ("/v1/kegs/{id}/scan", "/v1/kegs/{id}", "/v1/customers/{id}/kegs"),
            topic="kegs",
            rps=15,
            p99=120,
            noun="keg",
        ),
        Svc(
            "taproom-pos",
            "web",
            ("/pos/tabs", "/pos/tabs/{id}/close", "/pos/menu", "/pos/stock"),
            topic="tabs",
            rps=14,
            p99=350,
            noun="tab",
        ),
        Svc(
            "trade-orders",
            "api",
            ("/trade/orders", "/trade/orders/{id}", "/trade/pricelist", "/trade/accounts/{id}"),
            topic="trade.orders",
            rps=9,
            p99=400,
            noun="trade order",
        ),
        Svc("duty-returns", "worker", topic="duty.movements", rps=0.6, p99=2500, noun="duty line"),
        Svc(
            "webshop",
            "web",
            ("/shop", "/shop/products/{slug}", "/cart", "/checkout", "/checkout/complete"),
            topic="web.orders",
            rps=30,
            p99=600,
            noun="web order",
        ),
        Svc("canning-line", "worker", topic="line.events", rps=5, p99=50, noun="can run"),
    ],
    catalog={
        "brewlog": "fermentation tank readings (temperature, gravity, pressure) every 30 s and glycol setpoints for the 18 fermenters (Brewing; Python 3.12)",
        "keg-tracker": "QR scans of the 14,000 kegs as they leave full and come back empty from pubs and distributors (Trade; Go, PostgreSQL kbdb)",
        "taproom-pos": "tabs, menu and stock of the three taprooms (Hospitality; PHP 8.3, Laravel, MySQL 8 taproomdb)",
        "trade-orders": "orders from pubs, bottle shops and wholesalers, price lists per account (Trade; Java 21, Spring Boot, Hibernate, PostgreSQL kbdb)",
        "duty-returns": "alcohol duty per movement out of bond, monthly return to HMRC (Finance; C# .NET 8)",
        "webshop": "online shop and limited releases (Direct; Node 20, Next.js, Stripe-like payments via Paydock)",
        "canning-line": "the canning line's fill, seam and date-code events (Packaging; Elixir)",
        "kbdb": "PostgreSQL 15 shared by keg-tracker and trade-orders",
        "hosting": "AWS eu-west-2 (London), EKS across eu-west-2a/b/c; the taproom tills talk to taproom-pos over the internet",
    },
    lang={
        "brewlog": "python",
        "keg-tracker": "go",
        "taproom-pos": "php",
        "trade-orders": "java",
        "duty-returns": "csharp",
        "webshop": "node",
        "canning-line": "elixir",
    },
    authors=("morag.fife", "olu.bankole", "sam.whitlock", "kasia.lis", "dependabot[bot]"),
    style=_ketterbrook_mr,
    strays=[
        ("WARNING", "FV-07 gravity probe reading 0.998 outside plausible range, ignored"),
        ("WARNING", "keg KB-30-08812 scanned full twice without an empty scan in between"),
        (
            "ERROR",
            "taproom-pos: receipt printer TR2-PRN-1 offline (ECONNREFUSED 192.168.20.31:9100)",
        ),
        ("WARNING", "trade account TA-1042 over credit limit, order held for approval"),
        ("WARNING", "canning line seam check C-14 borderline 1.12 mm (limit 1.15)"),
    ],
    chatter={
        "brewlog": ["INFO brewlog.ingest: FV-11 temp=18.9C sg=1.014 psi=11.2"],
        "keg-tracker": [
            'level=INFO msg="keg scanned" keg=KB-50-02217 state=empty location=TA-0381'
        ],
        "taproom-pos": [
            "[2028-05-06] production.INFO: tab closed tab=T-88213 taproom=ARCHES total=42.50"
        ],
        "trade-orders": ["Order TO-551202 accepted account=TA-0381 lines=6 total=1184.00"],
        "webshop": ['{"level":"info","msg":"order completed","order":"W-771203","items":3}'],
        "canning-line": ["[info] run CR-2291 filled 4410 cans IPA 440ml rejects=3"],
    },
)
