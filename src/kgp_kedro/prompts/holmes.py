"""HOLMES' prompts: Panda et al., "HOLMES: Hyper-Relational Knowledge Graphs for Multi-hop
Question Answering using LLMs", ACL 2024, Appendix A.4 (question parsing, relation types,
triple extraction, the reader) and A.5 (the auxiliary schema's induction), verbatim. The texts
are byte-identical to what the project has always sent (the LLM call cache is keyed by them)."""
from __future__ import annotations

from collections.abc import Sequence


# -- A.4.2 (entities and relations of the question) and A.4.3 (a relation's entity types)
# A.4.2, verbatim
QUESTION_PROMPT = """Question: {question}
Task: extract all named entities from the above question. Then extract all the important information (each information should be 2-3 words) needed to answer the question. Output format - "entities: [ent1, ent2, ...] important relations: [info1, info2, ...]". Please note, do not give named entities in the 'important relations'
Use the following examples to understand the task:
Question: Who is the author of the book that inspired the movie starring Tom Hanks as a symbologist?
Entities: [Tom Hanks]
Important Relations: [author of, inspired the movie, stars,as a symbologist]
Question: Did the company that Elon Musk co-founded in 2002 eventually merge with a firm that had been contracted by NASA to resupply the International Space Station?
Entities: ['Elon Musk', '2002', 'NASA', 'International Space Station']
Important Relations: ['co-founded', 'merge with', 'contracted by', 'resupply']"""


# A.4.3, verbatim
TYPE_PROMPT = ("Task: Generate the subject and object entity type for the following relation, "
               "w.r.t. the provided context information. relation: {relation} Context: "
               "{context} ; DO NOT extract partial info. Output format: [<subject entity type>, "
               "< object entity type>]")


# -- A.4.4: triples of a document (the llm fact extractor)
# Appendix A.4.4, verbatim (the second example's closing quote restored)
TRIPLE_PROMPT = """Task: Comprehensively extract ALL the triples (subject, relation, object) from below given paragraph. Ensure that the subject and objects in the triples are named entities (name of person, organization, dates etc) and not multiple in number. You will be HEAVILY PENALIZED if you violate this constraint.

Examples: Use the following examples to understand the task better.

Paragraph: William Rast is an American clothing line founded by Justin Timberlake and Trace Ayala. It is most known for their premium jeans. On October 17, 2006, Justin Timberlake and Trace Ayala put on their first fashion show to launch their new William Rast clothing line. The label also produces other clothing items such as jackets and tops. The company started first as a denim line, later evolving into a men's and women's clothing line.
Triples:
i. subject: William Rast, relation: clothing line, object: American
ii. subject: William Rast, relation: founded by, object: Justin Timberlake
iii. subject: William Rast, relation: founded by, object: Trace Ayala
iv. subject: William Rast, relation: known for, object: premium jeans
v. subject: William Rast, relation: launched on , object: October 17, 2006
vi. subject: Justin Timberlake, relation: first fashion show, object: October 17, 2006
vii. subject: Trace Ayala, relation: first fashion show, object: October 17, 2006
viii. subject: William Rast, relation: produces, object: jackets
ix. subject: William Rast, relation: produces, object: tops
x. subject: William Rast, relation: started as, object: denim line
xi. subject: William Rast, relation: evolved into, object: men's and women's clothing line

Paragraph: The Glennwanis Hotel is a historic hotel in Glennville, Georgia, Tattnall County, Georgia, built on the site of the Hughes Hotel. The hotel is located at 209-215 East Barnard Street. The old Hughes Hotel was built out of Georgia pine circa 1905 and burned in 1920. The Glennwanis was built in brick in 1926. The local Kiwanis club led the effort to get the replacement hotel built, and organized a Glennville Hotel Company with directors being local business leaders. The wife of a local doctor won a naming contest with the name "Glennwanis Hotel", a suggestion combining "Glennville" and "Kiwanis".
Triples:
i. subject: Glennwanis Hotel, relation: is located in, object: 209-215 East Barnard Street, Glennville, Tattnall County, Georgia
ii. subject: Glennwanis Hotel, relation: was built on the site of, object: Hughes Hotel
iii. subject: Hughes Hotel, relation: was built out of, object: Georgia pine
iv. subject: Hughes Hotel, relation: was built circa, object: 1905
v. subject: Hughes Hotel, relation: burned in, object: 1920
vi. subject: Glennwanis Hotel, relation: was re-built in, object: 1926
vii. subject: Glennwanis Hotel, relation: was re-built using, object: brick
viii. subject: Kiwanis club, relation: led the effort to re-build, object: Glennwanis Hotel
ix. subject: Kiwanis club, relation: organized, object: Glennville Hotel Company
x. subject: Glennville Hotel Company, relation: directors, object: local business leaders
xi. subject: Glennwanis Hotel, relation: combines, object: "Glennville" and "Kiwanis"

Paragraph: {paragraph}
Triples:"""


def triple_prompt(paragraph: str) -> str:
    return TRIPLE_PROMPT.replace("{paragraph}", paragraph)


# -- A.4.5: the reader over the pruned hyper-relational facts
# A.4.5, verbatim; {facts} is the pruned and verbalised hyper-relational KG
READER_PROMPT = """Question:{question}
Read the above question carefully, understand the answer category. Now, given you understand the question, use the following facts to answer the question. Please note that the meaning of facts is HEAVILY dependent on the context or the document from which it was extracted.
{facts}
(Note: the above set of facts can be noisy, so if ambiguous information is present then focus on the question and keywords in the question - {relations})
First, fetch the relevant set of facts from the above taking into consideration the context of the fact (DO NOT generate your facts), then by combining them answer the question - {question}.
Instruction: Give the answer in the following format -
Relevant facts: <facts (and context of those facts) relevant to the question>
Reasoning: <Here, give your thought process of how you use the named entities {entities}, relations - {relations} of the question and accordingly traverse the facts given above to arrive at your answer>
Final Response: <If all the necessary facts are available to answer the question, express it in 3-4 words - Else, say None>
Further query: <if 'Final Response' is None, then think step-by-step using the 'Reasoning' and other facts and state which named entity's direct information is missing>"""


def reader_prompt(question: str, facts: Sequence[str], entities: Sequence[str],
                  relations: Sequence[str]) -> str:
    """A.4.5 with the verbalised facts one per line, in the given (score) order."""
    return (READER_PROMPT.replace("{question}", question)
            .replace("{facts}", "\n".join(facts))
            .replace("{entities}", ", ".join(entities))
            .replace("{relations}", ", ".join(relations)))


# -- A.5.1 (decomposition), A.5.3 (latent categories), A.5.4 (schema): the auxiliary schema
# A.5.1, verbatim (few-shot); the question to decompose is appended after the example
DECOMPOSE_PROMPT = """Task: Decompose a multi-hop question into a series of single-hop questions to assist in finding the answer in a step-by-step manner.
Instruction:
i. Proceed with the decomposition according to the outlined chain of thought.
ii. Only return the sub-questions, nothing else.
iii. Focus on the entities in the question
iv. If decomposition is not clear, do not guess.

Question: Lily's Driftwood Bay premiered on what British television channel that is operated by a joint venture between Viacom International Media Networks Europe and Sky plc?
Chain of Thought Instructions:
1. Identify the ultimate goal of the question: Find the television channel on which Lily's Driftwood Bay premiered.
2. Recognize that there are two pieces of information needed: a) Determine the British television channel operated by the specific joint venture. b) Find out if Lily's Driftwood Bay premiered on this channel.
3. Create single-hop sub-questions that will answer these pieces of information separately.
Output:
1. Which British television channel is operated by a joint venture between Viacom International Media Networks Europe and Sky plc?
2. Did Lily's Driftwood Bay premiere on this specific British television channel?

Question: {question}
Output:"""  # noqa: E501


# A.5.3, verbatim; the cluster's questions follow, one per line
CATEGORY_PROMPT = """Task: Extract latent topics with focus on entity types (not the entities themselves) and relations in below given questions. These topics should be the underlying question categories for these questions.
Instructions:
i. Keep in mind that I will later use these latent topics to create a KG schema such that the KG can answer questions such as the ones listed below.
ii. Answer in 1 sentence using detailed and informative words only.
iii. Consider cross-question information too for determining the latent topics.
iv. Directly give the latent topics without preamble text like "the latent topic is ...", and use bullets to separate topics.
Questions:
{questions}"""  # noqa: E501


# A.5.4, verbatim
SCHEMA_PROMPT = """Task: Create a graph schema for my KG using the broad question categories that I want to be answered by the KG. The broad question categories are: {question categories}
Instructions:
i. Create a set of relations for a knowledge graph that clearly and unambiguously express the relationships between entities ensuring they are reusable, standardized, and semantically meaningful.
ii. Generate a list of distinct, relevant, and comprehensive entities for a knowledge graph about wikipedia text, ensuring they are specific, meaningful, and cover all aspects of the domain.
iii. After extracting the entities and relation types, for the graph schema of the knowledge graph return the all the triplets "entity type - Relation Type - Entity Type" in the output as a list
iv. Important: ensure that the triplets generated forms a connected graph
v. Important: nothing else other than the list of triplets should be returned. Format for the list: [("Entity type", "relation", "Entity type"), ("Entity type", "relation", "Entity type"),...]"""  # noqa: E501


def decompose_prompt(question: str) -> str:
    return DECOMPOSE_PROMPT.replace("{question}", question)


def category_prompt(questions: Sequence[str]) -> str:
    return CATEGORY_PROMPT.replace("{questions}", "\n".join(f"- {q}" for q in questions))


def schema_prompt(categories: Sequence[str]) -> str:
    """A.5.4 with the categories in the sentence, separated by semicolons."""
    return SCHEMA_PROMPT.replace("{question categories}",
                                 "; ".join(c.rstrip(" .;") for c in categories))
