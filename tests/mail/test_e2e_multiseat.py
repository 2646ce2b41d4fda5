"""One person, two seats (service/multiseat.py), played by mail with forged but realistic
headers: two seats whose mail shares a small domain's DKIM signature, its Message-ID host,
one client version and one home network are shown to the master in STATUS, with the
evidence, and the master is mailed once; two JOINs with one password are shown too (each
waited for its CONFIRM); two seats at one large provider, sharing nothing but what the
provider stamps on all its users' mail, are not; and no player ever reads any of it."""

from __future__ import annotations

from email.message import EmailMessage

from helpers.e2e import MASTER, Harness, player, seated

from mailjudge.demo.mailroom import wire
from mailjudge.demo.sink import text_of

THUNDERBIRD = "Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.3.1"
SUBJECT = "two seats may be one person"


def forged(h: Harness, sender: str, text: str, **how: str) -> str:
    """Mail ``text`` with the headers a real client and its servers would have written;
    the judge's answer."""
    msg: EmailMessage = h.mail(sender, text, message_id=how["message_id"])
    msg["Received"] = (f"from {how['relay']} ({how['relay']} [{how['relay_ip']}]) by "
                       "mx.example.test (Postfix) with ESMTPS id 4Xq2Lk0Zz; "
                       "Mon, 7 Dec 2026 20:11:04 +0000")  # fmt: skip
    msg["Received"] = (f"from [192.168.1.23] ({how['client_host']} [{how['client_ip']}]) "
                       f"by {how['relay']} (Postfix) with ESMTPSA id 9F1C2; "
                       "Mon, 7 Dec 2026 20:11:02 +0000")  # fmt: skip
    msg["DKIM-Signature"] = (f"v=1; a=rsa-sha256; c=relaxed/relaxed; d={how['dkim']}; "
                             "s=2026; h=from:to:subject:date:message-id; "
                             "bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=; b=dGVzdA==")  # fmt: skip
    if how.get("client"):
        msg["User-Agent"] = how["client"]
    h.deliver(sender, wire(msg))
    return text_of(h.reply(str(msg["Message-ID"])))


def master_mails(h: Harness, game: str) -> list[str]:
    return [text_of(m.message) for m in h.sink.mails if m.rcpt_tos == [MASTER]
            and f"{SUBJECT} ({game})" in str(m.message["Subject"])]  # fmt: skip


def test_the_master_sees_two_seats_sharing_a_home(harness: Harness) -> None:
    h = harness
    table = seated(h, "twins")
    table.sign_on()
    home = {"relay": "smtp.kitchen-table.example", "relay_ip": "81.2.69.10",
            "dkim": "kitchen-table.example", "client": THUNDERBIRD}  # fmt: skip
    for n, (power, ip) in enumerate((("FRANCE", "81.2.69.142"), ("GERMANY", "81.2.69.160"))):
        answer = forged(h, player(power), f"{table.signon(power)}\nSTATUS",
                        message_id=f"<a1b2c3d4-{n}@kitchen-table.example>",
                        client_host=f"host-{ip.replace('.', '-')}.isp.example", client_ip=ip,
                        **home)  # fmt: skip
        assert "one person" not in answer  # a player reads nothing of it
    status = table.say(table.master, "SIGNON Mtwins masterpw\nSTATUS")
    assert "france and germany may be one person" in status
    for evidence in ("the same DKIM signing domain: kitchen-table.example",
                     "the same Message-ID host: kitchen-table.example",
                     "the same mail client and version: Mozilla/5.0", "Thunderbird/115.3.1",
                     "mail sent from one network: 81.2.69.0/24"):  # fmt: skip
        assert evidence in status
    assert status.count("may be one person:") == 1  # the others share one domain only
    h.wait_until(lambda: master_mails(h, "twins"), what="the master's mail")
    told = master_mails(h, "twins")
    assert len(told) == 1
    assert "france and germany may be one person" in told[0]
    forged(h, player("FRANCE"), f"{table.signon('FRANCE')}\nSTATUS",
           message_id="<a1b2c3d4-9@kitchen-table.example>", client_host="h.isp.example",
           client_ip="81.2.69.142", **home)  # fmt: skip
    assert "may be one person" not in table.say(table.players["FRANCE"],
                                                f"{table.signon('FRANCE')}\nSTATUS")  # fmt: skip
    assert len(master_mails(h, "twins")) == 1  # told once


def test_one_password_for_two_seats_is_shown(harness: Harness) -> None:
    h = harness
    h.command(MASTER, "CREATE sameword masterpw RULES POWER_CHOICE START_MASTER")
    assert "you joined" in h.command("anne@club.example", "JOIN sameword hunter22 FRANCE")
    assert "you joined" in h.command("bert@elsewhere.example", "JOIN sameword hunter22 ITALY")
    assert "you joined" in h.command("carl@club.example", "JOIN sameword other-word GERMANY")
    status = h.command(MASTER, "SIGNON Msameword masterpw\nSTATUS")
    assert "france and italy may be one person" in status
    assert "one password for both seats" in status
    assert status.count("may be one person:") == 1
    h.wait_until(lambda: master_mails(h, "sameword"), what="the master's mail")


def test_no_alarm_for_two_players_of_one_large_provider(harness: Harness) -> None:
    h = harness
    h.command(MASTER, "CREATE club masterpw RULES POWER_CHOICE START_MASTER")
    gmail = {"relay": "mail-wr1-f41.google.com", "dkim": "gmail.com"}
    for who, power, word, ip in (("alice.w@gmail.com", "ITALY", "pw-alice-1", "209.85.221.41"),
                                 ("bob.k@gmail.com", "AUSTRIA", "pw-bob-2", "209.85.221.44")):  # fmt: skip
        assert "you joined" in h.command(who, f"JOIN club {word} {power}")
        forged(h, who, f"SIGNON {power.lower()}@club {word}\nSTATUS",
               message_id=f"<CAB+{power}x7Qm=Zt@mail.gmail.com>", relay_ip=ip,
               client_host="mail-wr1-f41.google.com", client_ip=ip, **gmail)  # fmt: skip
    status = h.command(MASTER, "SIGNON Mclub masterpw\nSTATUS")
    assert "may be one person" not in status
    assert master_mails(h, "club") == []
