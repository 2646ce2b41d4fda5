"""The public web pages, read with Starlette's test client after games played by mail
through the SMTP listener: every route, the links between them, the 404s, the 304s, the
HTML, and what is never shown (private press, ballots, hidden authors, passwords,
addresses, orders not yet processed, private and closed games)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import html5lib
import pytest
from helpers.e2e import (
    JUDGE,
    MASTER,
    POWERS,
    Harness,
    join_by_mail,
    player,
    seated,
    secret,
    text_of,
)
from starlette.testclient import TestClient

from mailjudge.game.state import get_game
from mailjudge.web.app import make_app

MAX_PAGE = 300 * 1024


@pytest.fixture
def web(harness: Harness) -> Iterator[TestClient]:
    """The site over the harness judge's database (the test client runs in this process)."""
    with TestClient(make_app()) as client:
        yield client


def assert_html5(text: str) -> None:
    """html5lib in strict mode raises at the first parse error an HTML5 parser reports."""
    html5lib.HTMLParser(strict=True).parse(text)


def links(text: str) -> list[str]:
    return re.findall(r'href="(/[^"]*)"', text)


def crawl(web: TestClient, start: str = "/") -> dict[str, str]:
    """Every page reachable by links from `start`: no page is only reachable by typing."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        got = web.get(url)
        assert got.status_code == 200, (url, got.status_code)
        assert len(got.content) < MAX_PAGE, (url, len(got.content))
        seen[url] = got.text
        if got.headers["content-type"].startswith("text/html"):
            assert_html5(got.text)
            todo += [link.replace("&amp;", "&") for link in links(got.text)]
    return seen


PRIVATE = "the secret plan is xyzzy-meadowlark"
BROADCAST = "France greets the world, openly"
FUTURE_BUILD = "BUILD F MAR"


def play_standard(h: Harness) -> None:
    table = seated(h, "webby")
    table.sign_on()
    france = table.signon("FRANCE")
    table.say(table.players["FRANCE"], f"{france}\nBROADCAST\n{BROADCAST}\nENDPRESS", "")
    table.say(table.players["FRANCE"], f"{france}\nPRESS TO GERMANY\n{PRIVATE}\nENDPRESS", "")
    table.play_phase({"FRANCE": ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"]})
    table.play_phase({"FRANCE": ["A BUR - BEL", "A SPA H", "F MAO - POR"]})
    assert get_game("webby").phase == "W1901A"
    # France's build is on file for the phase now being played: secret until processed.
    table.say(table.players["FRANCE"], f"{france}\n{FUTURE_BUILD}", "")


def test_a_game_played_by_mail_reads_on_the_web(harness: Harness, web: TestClient) -> None:
    h = harness
    play_standard(h)
    # Two games nobody outside may see: private (SOLITAIRE) and closed to observers.
    assert "created" in h.command(MASTER, "CREATE alone masterpw RULES SOLITAIRE")
    assert "created" in h.command(MASTER, "CREATE closed masterpw RULES NO_OBSERVATIONS")

    pages = crawl(web)
    assert {"/", "/games/webby", "/games/webby/phases/S1901M", "/games/webby/phases/F1901M",
            "/games/webby/press", "/games/webby/feed.atom", "/api/games/webby"} <= set(pages)  # fmt: skip
    assert not any("alone" in url or "closed" in url for url in pages)

    index = pages["/"]
    assert "webby" in index and "Spring" not in index and "Winter 1901 adjustment" in index
    assert "standard" in index and "active" in index
    assert web.get("/?state=finished").text.count('href="/games/webby"') == 0
    assert web.get("/?state=active").text.count('href="/games/webby"') == 1

    game = pages["/games/webby"]
    assert "<svg" in game and 'class="centre-chart"' in game
    assert "POWER_CHOICE" in game and "players pick" in game
    assert re.search(r"France</th><td>6", game), "France holds 6 centres after 1901"
    assert "Deadline:" in game and "UTC" in game
    paris = web.get("/games/webby?tz=Europe/Paris").text
    assert "CET (Europe/Paris)" in paris and '<option value="Europe/Paris" selected>' in paris

    spring = pages["/games/webby/phases/S1901M"]
    assert "<svg" in spring and "A PAR - BUR" in spring and 'rel="next"' in spring
    assert 'rel="prev"' not in spring
    fall = pages["/games/webby/phases/F1901M"]
    assert "A BUR - BEL" in fall and 'href="/games/webby/phases/S1901M"' in fall
    assert "BEL" in fall and 'rel="next"' not in fall
    # The results as the results mail gives them.
    mailed = text_of(h.results_for("webby", "F1901M")[0].message)
    assert "A MAO - POR" in mailed.upper().replace("F MAO", "A MAO") or "F MAO - POR" in mailed
    assert "F MAO - POR" in fall

    press = pages["/games/webby/press"]
    assert BROADCAST in press and "From France" in press

    feed = ET.fromstring(pages["/games/webby/feed.atom"])
    atom = "{http://www.w3.org/2005/Atom}"
    titles = [e.findtext(f"{atom}title") for e in feed.iter(f"{atom}entry")]
    assert "Results of Spring 1901 movement" in titles and "Broadcast from France" in titles

    archive = json.loads(pages["/api/games/webby"])
    assert archive["game"]["name"] == "webby"
    assert [p["phase"] for p in archive["phases"]] == ["S1901M", "F1901M"]

    everything = "\n".join(pages.values())
    for hidden in (PRIVATE, FUTURE_BUILD, "F MAR", "masterpw", MASTER, "alone", "closed"):
        assert hidden not in everything, hidden
    for power in POWERS:
        assert secret(power) not in everything and player(power) not in everything
    # No address at all but the judge's own, which every page gives for joining (the
    # calendar's event UID, game-time-phase@judge's domain, has the form but is no address).
    addresses = re.findall(r"[\w.+-]+@[\w-]+\.[\w.-]+", re.sub(r"UID:\S+", "", everything))
    assert set(addresses) == {JUDGE}

    for url in ("/games/alone", "/games/closed", "/games/nosuch", "/games/webby/phases/S1905M",
                "/games/webby/phases/W1901A", "/games/webby/phases/junk", "/api/games/closed",
                "/games/closed/feed.atom", "/games/alone/press", "/nothing/here"):  # fmt: skip
        got = web.get(url)
        assert got.status_code == 404, url
        assert_html5(got.text)
        assert 'href="/"' in got.text


def test_an_unchanged_page_is_a_304(harness: Harness, web: TestClient) -> None:
    table = seated(harness, "fresh")
    table.sign_on()
    table.play_phase({"FRANCE": ["A PAR - BUR"]})
    for url in ("/", "/games/fresh", "/games/fresh/phases/S1901M", "/games/fresh/press",
                "/games/fresh/feed.atom", "/api/games/fresh"):  # fmt: skip
        first = web.get(url)
        tag, modified = first.headers["etag"], first.headers.get("last-modified")
        assert web.get(url, headers={"If-None-Match": tag}).status_code == 304, url
        if modified:
            again = web.get(url, headers={"If-Modified-Since": modified})
            assert again.status_code == 304, url
    tag = web.get("/games/fresh").headers["etag"]
    table.play_phase({"FRANCE": ["A BUR - BEL"]})  # the game moves on: the page changes
    assert web.get("/games/fresh", headers={"If-None-Match": tag}).status_code == 200


RULES = """\
1. Contestants play the standard map.

7. Contestants may seek the assistance of non-contestants.

22. If a player fails to order a retreat, the unit is disbanded.
"""
AMEND = 'AMEND RULE 22 REPLACE "If a player" WITH "If a country"\n'
UNPUBLISHED = 'AMEND RULE 1 REPLACE "standard map" WITH "moon-base-omega map"\n'


def test_a_diplonomic_game_shows_rules_and_proposals_but_no_author_or_vote(
    harness: Harness, web: TestClient
) -> None:
    """Private press, ballots and a proposal's author (which the rules hide) never show;
    the rules text, its versions, the enacted proposal and the teammates do."""
    h, game = harness, "nomic"

    def signon(power: str) -> str:
        return f"SIGNON {power.lower()}@{game} {secret(power)}\n"

    def process_turn() -> None:
        while True:
            assert "processed" in h.command(MASTER, f"SIGNON M{game} masterpw\nPROCESS!")
            if get_game(game).phase.endswith("M"):
                return

    assert "created" in h.command(MASTER, f"CREATE {game} masterpw VARIANT diplonomic RULES POWER_CHOICE")  # fmt: skip
    assert "stored" in h.command(MASTER, f"SIGNON M{game} masterpw\nRULEBOOK\n{RULES}END")
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {game} {secret(power)} {power}")
    h.wait_until(lambda: get_game(game).state == "active")
    added = h.command(player("FRANCE"), signon("FRANCE") + "TEAMMATE ADD bob@team.test AS bob")
    assert "teammate" in added
    assert "teammate of FRANCE" in h.command("bob@team.test", f"ACCEPT {game} bobsecret")
    sent = h.command(player("AUSTRIA"), signon("AUSTRIA") + f"PROPOSAL RULES Countries\n{AMEND}END")
    assert "proposal 1 received" in sent
    h.command(player("ITALY"), signon("ITALY") + f"PRESS TO TURKEY\n{PRIVATE}\nENDPRESS")
    process_turn()
    for power in ("ENGLAND", "FRANCE", "GERMANY", "ITALY"):
        assert "is recorded" in h.command(player(power), signon(power) + "VOTE PROPOSAL 1 FOR")
    assert "is recorded" in h.command(player("TURKEY"), signon("TURKEY") + "VOTE PROPOSAL 1 AGAINST")  # fmt: skip
    process_turn()
    # A proposal sent now is published only when the next turn begins: not yet public.
    later = h.command(player("RUSSIA"), signon("RUSSIA") + f"PROPOSAL RULES Moon\n{UNPUBLISHED}END")
    assert "proposal 2 received" in later

    pages = crawl(web)
    page = pages[f"/games/{game}"]
    assert "22. If a country fails to order a retreat" in page  # version 2, in force
    assert "22. If a player fails to order a retreat" in page  # version 1, earlier
    assert "Proposal 1" in page and "4 for" in page and "bob" in page
    enacted = page[page.index("Enacted proposals") : page.index("Teammates")]
    for power in POWERS:
        assert power.title() not in enacted and power not in enacted
    everything = "\n".join(pages.values())
    for hidden in (PRIVATE, "moon-base-omega", "AGAINST", "bobsecret", "bob@team.test"):
        assert hidden not in everything, hidden
    for power in POWERS:
        assert secret(power) not in everything and player(power) not in everything


def test_the_variants_show_what_their_rules_publish(harness: Harness, web: TestClient) -> None:
    """Democratic: the diplomats and the published counts; Double: the seats."""
    h = harness
    assert "created" in h.command(MASTER, "CREATE demo masterpw VARIANT democratic")
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
    for name in names:
        assert "joined" in join_by_mail(
            h, f"{name}@citizens.test", f"JOIN demo pw-{name} AS {name}"
        )
    assert "started" in h.command(MASTER, "SIGNON Mdemo masterpw\nSTART").lower()
    page = web.get("/games/demo").text
    assert "The diplomats" in page and "Elected diplomats now" in page
    assert "citizens.test" not in page and "pw-alice" not in page

    assert "created" in h.command(MASTER, "CREATE twin masterpw VARIANT double")
    page = web.get("/games/twin").text
    assert "Each power&#39;s two players" in page or "Each power's two players" in page


def test_results_mail_links_to_the_phase_page(tmp_path: Path, smtp_sink: object) -> None:
    """With web.base_url set, each results mail links to the phase on the web."""
    from helpers.e2e import JUDGE, Harness

    from mailjudge.demo import mailroom

    with mailroom.running_judge(
        tmp_path / "judge.db", smtp_sink, JUDGE, web_base_url="https://judge.example.test"
    ) as h:
        table = seated(Harness(h.judge, h.sink), "linked")
        table.sign_on()
        table.play_phase({"FRANCE": ["A PAR - BUR"]})
        body = text_of(h.results_for("linked", "S1901M")[0].message)
        assert "https://judge.example.test/games/linked/phases/S1901M" in body


def test_the_feed_takes_no_link_from_the_host_header(harness: Harness) -> None:
    """The feed's links and ids come from web.base_url, else are relative links and tag:
    ids: a request with a forged Host header changes nothing, and the cached copy every
    reader gets points where the judge says."""
    from dataclasses import replace

    from mailjudge.config.settings import current_settings

    table = seated(harness, "feedy")
    table.sign_on()
    table.play_phase({"FRANCE": ["A PAR - BUR"]})
    plain = current_settings()
    configured = replace(plain, web=replace(plain.web, base_url="https://dip.example.org/"))
    atom = "{http://www.w3.org/2005/Atom}"
    for settings, link in ((configured, "https://dip.example.org/games/feedy"),
                           (plain, "/games/feedy")):  # fmt: skip
        with TestClient(make_app(settings=settings)) as client:
            forged = client.get("/games/feedy/feed.atom", headers={"Host": "evil.example"})
            honest = client.get("/games/feedy/feed.atom")
            assert forged.text == honest.text
            assert "evil" not in forged.text and "testserver" not in forged.text
            feed = ET.fromstring(forged.text)
            hrefs = [e.get("href") for e in feed.iter(f"{atom}link")]
            assert hrefs and all(h and h.startswith(link) for h in hrefs), hrefs
            ids = [e.text or "" for e in feed.iter(f"{atom}id")]
            if settings is plain:
                assert all(i.startswith("tag:example.test,") for i in ids), ids
            else:
                assert all(i.startswith(link) for i in ids), ids


def test_cache_busting_costs_nothing(harness: Harness, web: TestClient) -> None:
    """Query parameters a page does not read are not part of its cache key: 300 distinct
    URLs of the feed are one cached page, answered from the cache; and the cache is
    bounded by pages and by bytes whatever is asked."""
    from mailjudge.web.cache import Page, PageCache

    table = seated(harness, "busted")
    table.sign_on()
    table.play_phase({"FRANCE": ["A PAR - BUR"]})
    cache = web.app.state.pages  # type: ignore[attr-defined]
    first = web.get("/games/busted/feed.atom")
    for n in range(300):
        got = web.get(f"/games/busted/feed.atom?x={n}&_={n * 7}")
        assert got.status_code == 200 and got.text == first.text
    assert len(cache) == 1
    for n in range(50):  # an unknown zone is read as UTC: one page too
        web.get(f"/games/busted?tz=Nowhere/{n}&junk={n}")
    web.get("/games/busted?tz=UTC")
    assert len(cache) == 2

    small = PageCache(size=8, max_bytes=10_000)
    for n in range(100):
        small.put(f"/p{n}", 0, Page("x" * 3000, None, "text/html", str(n)))
        assert len(small) <= 8 and small.bytes <= 10_000
    assert small.get("/p99", 0) is not None and small.get("/p0", 0) is None


def test_the_names_shown_are_the_ones_chosen(harness: Harness, web: TestClient) -> None:
    """JOIN ... AS name shows that name; a player who chose none shows none, never a part
    of their address, before the start and after."""
    h = harness
    assert "created" in h.command(MASTER, "CREATE named masterpw RULES POWER_CHOICE")
    assert "joined" in h.command("zed.quietly@mail.test", "JOIN named pw-zed ENGLAND")
    assert "joined" in h.command(player("FRANCE"), f"JOIN named {secret('FRANCE')} FRANCE AS Marianne")  # fmt: skip
    forming = web.get("/games/named").text
    assert "joined: Marianne" in forming
    assert "zed" not in forming and "quietly" not in forming
    for power in ("GERMANY", "ITALY", "AUSTRIA", "RUSSIA", "TURKEY"):
        h.command(player(power), f"JOIN named {secret(power)} {power}")
    h.wait_until(lambda: get_game("named").state == "active")
    page = web.get("/games/named").text
    assert re.search(r"France</th><td>played by Marianne", page)
    assert re.search(r"England</th><td>played \(no public name chosen\)", page)
    assert "zed" not in page and "quietly" not in page


def test_a_democratic_game_counts_its_citizens(harness: Harness, web: TestClient) -> None:
    """14 citizens: 14 people on the list of games, 14 citizens over the powers (none
    'vacant'), and each diplomat by the public name chosen."""
    from mailjudge.store.models import Seat

    h = harness
    assert "created" in h.command(MASTER, "CREATE demos masterpw VARIANT democratic")
    for n in range(14):
        chosen = f" AS Citizen-{n}" if n % 2 else ""  # half choose a name
        join_by_mail(h, f"person{n:02d}@citizens.test", f"JOIN demos pw{n}{chosen}")
    assert "started" in h.command(MASTER, "SIGNON Mdemos masterpw\nSTART").lower()
    index = web.get("/").text
    assert re.search(r'href="/games/demos">demos</a></td>\s*<td[^>]*>democratic</td>\s*'
                     r'<td[^>]*>[^<]*</td>\s*<td[^>]*>active</td>\s*<td[^>]*>14</td>', index)  # fmt: skip
    page = web.get("/games/demos").text
    seats = page[page.index("Who plays what") : page.index("Rules</h2>")]
    counts = [int(n) for n in re.findall(r"<td>(\d+) citizens?", seats)]
    assert sum(counts) == 14 and len(counts) == 7
    assert "vacant" not in seats and "person" not in page
    # A citizen who chose a name, made diplomat, is shown by it; one who chose none is not
    # shown by anything made from the address.
    named = Seat.get(Seat.public_name == "Citizen-1")
    unnamed = Seat.get(Seat.name == "person00")
    Seat.update(role="diplomat").where(Seat.id.in_([named.id, unnamed.id])).execute()
    web.app.state.pages.lifetime = 0  # type: ignore[attr-defined]
    page = web.get("/games/demos").text
    assert "diplomat: Citizen-1" in page and "person00" not in page
    assert "elected, no public name" in page


def test_a_visitor_learns_how_to_join(harness: Harness, web: TestClient) -> None:
    """The list of games and a forming game's page give the judge's address, as a mailto:
    link, and the JOIN line to send."""
    assert "created" in harness.command(MASTER, "CREATE joinme masterpw RULES POWER_CHOICE")
    index = web.get("/").text
    assert f'href="mailto:{JUDGE}"' in index and "JOIN game your-password" in index
    page = web.get("/games/joinme").text
    assert f'href="mailto:{JUDGE}"' in page
    assert "JOIN joinme your-password [power] AS your-public-name" in page
    assert_html5(index) or assert_html5(page)


def test_a_player_sees_what_is_owed_the_time_left_and_last_phase(
    harness: Harness, web: TestClient
) -> None:
    """A running game shows who still owes orders (powers only, never an order), the
    deadline with a countdown, the board with last phase's orders, the units as text and
    the boards full size."""
    table = seated(harness, "owing")
    table.sign_on()
    table.play_phase({"FRANCE": ["A PAR - BUR", "A MAR - SPA"]})
    web.app.state.pages.lifetime = 0  # type: ignore[attr-defined]
    page = web.get("/games/owing").text
    owed = re.search(r"Orders still owed for Fall 1901 movement: <strong>([^<]*)</strong>", page)
    assert owed and owed.group(1) == "Austria, England, France, Germany, Italy, Russia, Turkey"
    table.send_orders("FRANCE", ["A BUR - BEL", "A SPA H", "F BRE - MAO"])
    table.send_orders("ENGLAND", ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"])
    page = web.get("/games/owing").text
    owed = re.search(r"Orders still owed for Fall 1901 movement: <strong>([^<]*)</strong>", page)
    assert owed and owed.group(1) == "Austria, Germany, Italy, Russia, Turkey"
    assert "BUR - BEL" not in page and "LON - NTH" not in page  # the orders stay secret
    assert 'class="countdown" data-deadline="' in page and "<script>" in page
    assert "Last phase&#39;s orders: Spring 1901 movement" in page or \
        "Last phase's orders: Spring 1901 movement" in page  # fmt: skip
    assert page.count("<svg") == 2  # the board now and the chart; last phase's is linked
    assert '<img src="/games/owing/phases/S1901M/board.svg"' in page
    assert "Army Burgundy (BUR)" in page and "Fleet Brest (BRE)" in page
    board = web.get("/games/owing/board.svg")
    assert board.headers["content-type"].startswith("image/svg+xml")
    assert board.text.startswith("<svg") and "Fall 1901" in board.text
    phase = web.get("/games/owing/phases/S1901M/board.svg")
    assert phase.status_code == 200 and "stroke-dasharray" not in phase.text.split("</title>")[0]
    blind = web.get("/games/owing?palette=colourblind").text
    from mailjudge.render.board.style import PALETTES

    assert PALETTES["colourblind"].powers["FRANCE"] in blind
    assert PALETTES["colourblind"].powers["FRANCE"] not in page
    assert 'href="/games/owing/phases/S1901M?palette=colourblind"' in blind  # kept on links


def test_old_records_are_paged(
    harness: Harness, web: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Democratic game's published counts pile up each phase: the game page keeps the
    newest, and the older ones are on pages of their own, so the game page stays small
    however long the game runs."""
    from mailjudge.variants.democratic.country_lists import JUDGE as AUTHOR
    from mailjudge.variants.democratic.public import ELECTION_SUBJECT
    from mailjudge.variants.democratic.tables import ListPost

    h = harness
    assert "created" in h.command(MASTER, "CREATE longrun masterpw VARIANT democratic")
    for n in range(7):
        h.command(f"c{n}@citizens.test", f"JOIN longrun pw{n} AS c{n}")
    assert "started" in h.command(MASTER, "SIGNON Mlongrun masterpw\nSTART").lower()
    game = get_game("longrun")
    body = "Counts, stage by stage:\n" + "\n".join(f"c{n}: {n} votes" for n in range(7)) * 20

    def publish(phases: int) -> None:
        for year in range(phases):
            for power in POWERS:
                ListPost.create(game=game, power=power, phase=f"S{1901 + year}M",
                                author=AUTHOR, subject=ELECTION_SUBJECT, body=body)  # fmt: skip

    web.app.state.pages.lifetime = 0  # type: ignore[attr-defined]
    publish(4)
    small = len(web.get("/games/longrun").content)
    publish(96)  # 100 phases: 700 records
    page = web.get("/games/longrun")
    assert len(page.content) < small * 1.05, (small, len(page.content))
    assert len(page.content) < MAX_PAGE
    assert page.text.count("the diplomats (") == 14
    total = ListPost.select().where(
        (ListPost.game == game) & (ListPost.subject == ELECTION_SUBJECT)
    ).count()  # fmt: skip
    assert total >= 700
    older = total - 14
    assert f"{older} earlier records" in page.text
    pages = crawl(web, "/games/longrun/records")
    records = [u for u in pages if u.startswith("/games/longrun/records")]
    assert len(records) == -(-older // 28)  # 28 a page
    assert sum(p.count("the diplomats (") for u, p in pages.items() if u in records) == older
    beyond = f"/games/longrun/records?page={len(records) + 1}"
    assert web.get(beyond).status_code == 404


def test_a_democratic_count_names_no_one_by_their_address(
    harness: Harness, web: TestClient
) -> None:
    """Citizens who chose no public name are elected and counted: the published counts on
    the web name them by no part of their address."""
    from mailjudge.store.models import Seat

    h = harness
    assert "created" in h.command(MASTER, "CREATE quiet masterpw VARIANT democratic")
    for n in range(7):
        assert "joined" in h.command(f"hushed{n}@citizens.test", f"JOIN quiet pw{n}")
    assert "started" in h.command(MASTER, "SIGNON Mquiet masterpw\nSTART").lower()
    for seat in Seat.select().where((Seat.game == get_game("quiet")) & (Seat.role == "citizen")):
        say = f"SIGNON {seat.name}@quiet pw{seat.name[-1]}\n"
        assert "nominated" in h.command(f"{seat.name}@citizens.test", say + f"NOMINATE {seat.name}")
        assert "recorded" in h.command(
            f"{seat.name}@citizens.test", say + f"VOTE DIPLOMAT {seat.name}"
        )
    assert "processed" in h.command(MASTER, "SIGNON Mquiet masterpw\nPROCESS!")
    # A broadcast from a seat that holds no power (as stored, whoever may send one).
    from mailjudge.store.models import Press

    citizen = Seat.get((Seat.game == get_game("quiet")) & (Seat.name == "hushed0"))
    Press.create(game=get_game("quiet"), sender=citizen, recipients="ALL", broadcast=True,
                 body="hello all")  # fmt: skip
    pages = crawl(web, "/games/quiet")
    assert (
        "From a citizen" in pages["/games/quiet/press"]
        or "From a diplomat" in pages["/games/quiet/press"]
    )
    everything = "\n".join(pages.values())
    assert "votes" in everything or "elected" in everything
    assert "hushed" not in everything  # the count says "citizen 3", not "hushed2"
    # The JSON of the game names the broadcast's sender as the pages do.
    assert re.search(r'"from": "(citizen|diplomat) \d"', pages["/api/games/quiet"])
