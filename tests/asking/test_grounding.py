"""The answer check (:mod:`kgp_kedro.asking.grounding`) on real sentences of real documents:
the GNU GPL 3, the Mozilla Public License 2.0 and the Apache License 2.0 (as Debian ships them
in /usr/share/common-licenses), and a table of PostgreSQL's documentation; each claim with the
verdict and each answer with the mark it must get, read by hand."""
from __future__ import annotations

import pytest

from kgp_kedro.asking.grounding import (NOT_FOUND, Claim, Quote, check_claim, claims, ground,
                                        refuses, specifics, without_expansions)

# GPL-3, section 8 (Termination), its third and fourth paragraphs
GPL_CURE = ("Moreover, your license from a particular copyright holder is reinstated "
            "permanently if the copyright holder notifies you of the violation by some "
            "reasonable means, this is the first time you have received notice of violation of "
            "this License (for any work) from that copyright holder, and you cure the violation "
            "prior to 30 days after your receipt of the notice.")
GPL_TERMINATION = ("Termination of your rights under this section does not terminate the "
                   "licenses of parties who have received copies or rights from you under this "
                   "License.")
# MPL-2.0, section 5.1
MPL_NOTIFY = ("However, if You become compliant, then the rights granted under this License "
              "from a particular Contributor are reinstated (a) provisionally, unless and until "
              "such Contributor explicitly and finally terminates Your grants, and (b) on an "
              "ongoing basis, if such Contributor fails to notify You of the non-compliance by "
              "some reasonable means prior to 60 days after You have come back into "
              "compliance.")
# Apache-2.0, section 3
APACHE_PATENT = ("3. Grant of Patent License. Subject to the terms and conditions of this "
                 "License, each Contributor hereby grants to You a perpetual, worldwide, "
                 "non-exclusive, no-charge, royalty-free, irrevocable (except as stated in this "
                 "section) patent license to make, have made, use, offer to sell, sell, import, "
                 "and otherwise transfer the Work.")
# PostgreSQL 15 documentation, Table 8.2 "Numeric Types" (four of its rows), as the PDF and
# HTML readers write a table, under the heading above it
NUMERIC_TYPES = ("8.1. Numeric Types:\n"
                 "| Name | Storage Size | Description | Range |\n"
                 "| --- | --- | --- | --- |\n"
                 "| smallint | 2 bytes | small-range integer | -32768 to +32767 |\n"
                 "| integer | 4 bytes | typical choice for integer | -2147483648 to +2147483647 |\n"
                 "| bigint | 8 bytes | large-range integer | -9223372036854775808 to "
                 "+9223372036854775807 |\n"
                 "| real | 4 bytes | variable-precision, inexact | 6 decimal digits precision |")
# the Speex manual 1.2 (speex-doc), section 4.1 and its in-band signalling table (unruled, so
# read as text), as the project's PDF reader writes them
SPEEXENC = ("–ultra-wideband (-u) Tell Speex to treat the input as “ultra-wideband” (32 kHz) "
            "–quality n Set the encoding quality (0-10), default is 8 –bitrate n Encoding "
            "bit-rate (use bit-rate n or lower) –abr n Enable ABR (Average Bit-Rate) at n kbps, "
            "disabled by default")
IN_BAND = ("Code Size (bits) Content 0 1 Asks decoder to set perceptual enhancement off (0) or "
           "on(1) 10 16 Announce maximum bit-rate acceptable (N in bytes/second) 11 16 reserved "
           "12 32 Acknowledge receiving packet N 13 32 reserved")
QUOTES = [GPL_CURE, MPL_NOTIFY, APACHE_PATENT, NUMERIC_TYPES, GPL_TERMINATION, SPEEXENC,
          IN_BAND]


def _verdict(question: str, claim: str, cited: list[int]) -> tuple[str, list[int]]:
    checked = check_claim(Claim(claim, cited), question, [Quote(q) for q in QUOTES])
    return checked.verdict, checked.support


@pytest.mark.parametrize("question, claim, cited, expected", [
    # the number read right, cited right
    ("How long do I have to cure a GPL violation after the notice?",
     "You must cure the violation within 30 days of receiving the notice.", [1],
     ("supported", [1])),
    # numbers compared whole: 60 is the MPL's period, not the GPL's; 3 is nobody's
    ("How long do I have to cure a GPL violation after the notice?",
     "You have 60 days to cure the violation.", [1], ("unsupported", [])),
    # the right quote when the reply cites another
    ("How many days after coming back into compliance must a Contributor notify You?",
     "The Contributor must notify You within 60 days.", [1], ("re-attributed", [2])),
    ("How long do I have to cure a GPL violation after the notice?",
     "You have 3 days to cure the violation.", [1], ("unsupported", [])),
    # a paraphrase around the quote's specifics keeps its claim ("gets back" for "reinstated")
    ("When does a Contributor's grant come back on an ongoing basis under the MPL?",
     "If the Contributor does not notify You within 60 days after You are compliant again, "
     "Your rights are reinstated on an ongoing basis.", [2], ("supported", [2])),
    # content words only, a paraphrase of the quote's: half of them are in it
    ("What kind of patent license does each Contributor grant under the Apache License?",
     "Each Contributor grants a perpetual, worldwide, royalty-free patent license.", [3],
     ("supported", [3])),
    # a negative answer is a claim like any other
    ("Does terminating my rights terminate the licenses of people who got copies from me?",
     "No, termination of your rights does not terminate the licenses of parties who "
     "received copies from you.", [5], ("supported", [5])),
    # a table read as cells: the right row's size, the wrong row's, two rows named
    ("How much storage does a bigint take in PostgreSQL?",
     "A bigint takes 8 bytes of storage.", [4], ("supported", [4])),
    ("How much storage does a smallint take in PostgreSQL?",
     "A smallint takes 4 bytes of storage.", [4], ("unsupported", [])),
    ("How much storage do smallint and bigint take in PostgreSQL?",
     "A smallint takes 2 bytes and a bigint 8 bytes.", [4], ("supported", [4])),
    # a number compared with its unit: 32 kHz is no bit-rate; a number with none beside it
    # takes its unit from anywhere in the quote (a table's header read as text)
    ("What bit-rate does Speex ultra-wideband mode give at quality 8?",
     "Ultra-wideband mode gives 32 kbps at quality 8.", [6], ("unsupported", [])),
    ("How long is the Speex in-band message that acknowledges receiving packet N?",
     "The message that acknowledges receiving packet N is 32 bits long.", [7],
     ("supported", [7])),
    # a name the quotes do not hold
    ("What kind of patent license does each Contributor grant under the Apache License?",
     "Each Contributor grants a patent license approved by the OSI.", [3],
     ("unsupported", [])),
])
def test_each_claim_gets_the_verdict_read_by_hand(question, claim, cited, expected):
    assert _verdict(question, claim, cited) == expected


def test_numbers_are_whole_tokens_and_code_words_are_specifics():
    assert specifics("Revenue was $2.4 million in 2023.", "What was the revenue?") == \
        ["2.4", "2023"]
    assert specifics("Set max_connections to 100 in postgresql.conf with -c.", "How?") == \
        ["max_connections", "100", "postgresql.conf", "c"]
    # what the question already names is no specific of the answer
    assert specifics("PostgreSQL listens on port 5432.", "Which port does PostgreSQL use?") \
        == ["5432"]
    assert Quote("Revenue was $4.2 million, up 12%.").units == [
        {"reven", "was", "4.2", "milli", "up", "12", "4.2 *", "12 *"}]


# FHS 3.0, section 5.10.2 (its table of /var/log's files, unruled, as the PDF reader writes it)
FHS_VAR_LOG = ("5.10.2. Specific Options: The following files, or symbolic links to files, must "
               "be in /var/log, if the corresponding subsystem is installed: File Description "
               "lastlog record of last login of each user messages system messages from syslogd "
               "wtmp record of all logins and logouts")


def test_an_acronym_spelled_out_beside_it_adds_nothing():
    question = "Which file does the FHS say records the last login of each user?"
    # the 1.5B reader's reply on the dev set: right, and FHS spelled out
    spelled = "The FHS (Filesystem Hierarchy Standard) says that the `lastlog` file records " \
              "the last login of each user."
    checked = check_claim(Claim(spelled, [1]), question, [Quote(FHS_VAR_LOG)])
    assert (checked.verdict, checked.support) == ("supported", [1])
    # a name in parentheses that spells out nothing is still checked
    other = "The FHS (Fedora Linux) says that the `lastlog` file records the last login."
    assert check_claim(Claim(other, [1]), question, [Quote(FHS_VAR_LOG)]).verdict == \
        "unsupported"
    assert without_expansions("Enable VAD (Voice Activity Detection) with -vad.") == \
        "Enable VAD with -vad."
    # the shortest run of words before it that spells it out
    assert without_expansions("It is under the GNU General Public License (GPL) 2.") == \
        "It is under the GNU GPL 2."
    assert without_expansions("Set CBR (0) or VBR (5).") == "Set CBR (0) or VBR (5)."


def test_refusals_are_told_from_negative_answers():
    for sentence in ["The quotes do not mention the default port.",
                     "The provided documents don't specify a fee.",
                     "No information is given about the warranty.",
                     "Not found in the documents.",
                     "I cannot find this in the quotes."]:
        assert refuses(sentence), sentence
    for sentence in ["The warranty does not include water damage.",
                     "No refund is given after 30 days.",
                     "Termination does not terminate the licenses of other parties.",
                     "The ls command does not provide details on hidden files without -a."]:
        assert not refuses(sentence), sentence


def test_an_answer_is_marked_by_its_claims():
    question = "How long do I have to cure a GPL violation after the notice?"
    grounded = ground(question, "You have 30 days after the notice [1]. It is "
                                "irrevocable [3].", QUOTES, "answer", 80)
    assert grounded.mark == "partly supported"
    assert grounded.text == "You have 30 days after the notice [1]."
    assert grounded.claims[0].snippet.startswith("Moreover, your license")
    refused = ground(question, "The quotes do not say how long [2].", QUOTES, "answer", 80)
    assert (refused.text, refused.mark, refused.closest) == (NOT_FOUND, "not found", [1, 2, 3])
    invented = ground(question, "You have 90 days [1].", QUOTES, "answer", 80)
    assert (invented.text, invented.mark) == (NOT_FOUND, "not found")
    # none keeps the reply as it cites it
    kept = ground(question, "You have 90 days [1].", QUOTES, "none", 80)
    assert (kept.text, kept.mark) == ("You have 90 days [1].", "supported")
    with pytest.raises(ValueError, match="grounding check"):
        ground(question, "x", QUOTES, "relation", 80)


def test_a_citation_after_the_full_stop_or_in_a_pointer_belongs_to_the_claim_before():
    assert claims("It is 30 days. [1] This is stated in quote [2]. Then 60 days [3].") == [
        ("It is 30 days.", [1, 2]), ("Then 60 days.", [3])]
    assert claims("It lasts e.g. 30 days. It ends.") == [("It lasts e.g. 30 days.", []),
                                                          ("It ends.", [])]
    # a pointer with no claim before it is no claim
    assert claims("This can be found in quote on page 32 [1].") == []
    assert claims("The delay is 34 ms [2]. This is specified in section 3.3 [4].") == [
        ("The delay is 34 ms.", [2, 4])]


# RFC 3533 (libogg-dev), section 6: the page header's layout, its byte ranges on the right,
# as the text reader gives the file
OGG_HEADER = ("|                               | page_sequence_number          | 16-19\n"
              "+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+\n"
              "|                               | CRC_checksum                  | 20-23")
# the MPICH 4.0.2 user's guide (mpich-doc), section 8.2
MPICH_INTERVAL = ("You can also automatically checkpoint the application at regular intervals "
                  "using the mpiexec option -ckpoint-interval to specify the number of seconds "
                  "between checkpoints: shell$ mpiexec -ckpointlib blcr \\ -ckpoint-prefix "
                  "/home/buntinas/ckpts/app.ckpoint \\ -ckpoint-interval 3600 -f hosts -n 4 ./app")
# the NEATO user's guide (graphviz-doc), a page's running foot and first lines
NEATO_FOOT = ("NEATO User’s Manual, April 26, 2004 2 NEATO is a utility that draws undirected "
              "graphs, which are common in telecommunications and computer programming.")
# the Ecasound user's guide (ecasound-doc), section 7.6.1
ECASOUND_F = ("ecasound -f:,2 -i jack,system -o foo.wav ecasound -f:f32,2,44100 -i jack,system "
              "-o foo.wav Here we use “-f:bits,channels,srate” to set how many channels to "
              "record from the sound device using JACK.")


def test_a_range_of_numbers_is_a_specific_compared_whole():
    question = "At which byte offsets of the Ogg page header is the page_sequence_number stored?"
    quotes = [Quote(OGG_HEADER)]
    # the 1.5B reader's reply on holdout2: the range is what it adds, held by the quote ...
    right = "The page_sequence_number is stored at byte offsets 16-19 of the Ogg page header."
    assert specifics(right, question) == ["16-19"]
    assert check_claim(Claim(right, [1]), question, quotes).verdict == "supported"
    # ... and a range the quote does not hold is not (before, a range was no specific: the
    # claim added nothing and the answer became "not found", right or wrong)
    wrong = "The page_sequence_number is stored at byte offsets 24-27 of the Ogg page header."
    assert check_claim(Claim(wrong, [1]), question, quotes).verdict == "unsupported"


def test_a_quantity_restated_in_parentheses_is_an_aside():
    question = "How often does the MPICH guide's example with an automatic checkpoint interval " \
               "take a checkpoint?"
    reply = "The example takes a checkpoint every 3600 seconds (1 hour) [1]."
    grounded = ground(question, reply, [MPICH_INTERVAL], "answer", 240)
    assert grounded.mark == "supported" and "3600 seconds" in grounded.text
    # the number itself is still checked
    wrong = ground(question, "It takes one every 1800 seconds (30 minutes) [1].",
                   [MPICH_INTERVAL], "answer", 240)
    assert wrong.text == NOT_FOUND


def test_a_pick_between_the_questions_two_alternatives_is_checked_by_its_name():
    question = "Which of the two Graphviz guides is older, the dot User’s Manual or the NEATO " \
               "User’s Manual?"
    # the 1.5B reader's reply on holdout2: its pick named, "citation" no word of content
    picked = ground(question, "The NEATO User’s Manual is older, with a citation from quote "
                    "[1].", [NEATO_FOOT], "answer", 240)
    assert picked.mark == "supported" and picked.claims[0].support == [1]
    # a pick the quotes never name is removed
    other = ground(question, "The dot User’s Manual is older [1].", [NEATO_FOOT], "answer", 240)
    assert other.text == NOT_FOUND
    # a claim that picks nothing adds nothing: no answer
    assert ground(question, "One of the guides is older [1].", [NEATO_FOOT], "answer",
                  240).text == NOT_FOUND


def test_an_answer_whose_first_claim_is_removed_is_not_found():
    question = "What sampling rate does Ecasound use by default when recording from an ALSA " \
               "sound card?"
    # the 1.5B reader's reply to this unanswerable holdout question: its answer (44100 Hz as a
    # default) held by no quote, then a sentence the quote does hold
    reply = ("The default sampling rate used by Ecasound when recording from an ALSA sound card "
             "is 44100 Hz. This can be set using the `-f` parameter with the value "
             "`f32,2,44100`.")
    grounded = ground(question, reply, [ECASOUND_F], "answer", 240)
    assert grounded.mark == "not found" and grounded.text == NOT_FOUND
    assert [c.verdict for c in grounded.claims] == ["unsupported", "re-attributed"]
