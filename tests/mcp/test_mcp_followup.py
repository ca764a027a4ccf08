"""The MCP ``ask_followup`` tool over streamable HTTP: a follow-up on a completed job."""

from __future__ import annotations

from ..conftest import QUESTION
from ..server.helpers import LiveServer
from .test_mcp import http_client, http_server, index_path, run, text_of, wait_completed

__all__ = ["http_server", "index_path"]


def test_ask_followup_answers_from_the_jobs_sources(http_server: LiveServer) -> None:
    async def main() -> None:
        async with http_client(http_server) as client:
            started = await client.call_tool("start_research", {"question": QUESTION, "max_rounds": 1})
            job_id = started.structured_content["job_id"]
            await wait_completed(client, job_id)
            report = text_of((await client.call_tool("get_report", {"job_id": job_id})).content)
            built = await client.call_tool("ask_followup", {"job_id": job_id, "question": "Who built it?"})
            assert not built.is_error, built.content
            answer = dict(built.structured_content)
            assert answer["answer"] == "Mikuláš of Kadaň"
            assert f"\n{answer['source_number']}. [" in report.split("## References", 1)[1]
            mars = {"job_id": job_id, "question": "How far away is Mars?", "research": False}
            unanswered = dict((await client.call_tool("ask_followup", mars)).structured_content)
            assert unanswered["answered"] is False and unanswered["researched"] is False
            missing = await client.call_tool("ask_followup", {"job_id": "nope", "question": "Who built it?"})
            assert missing.is_error

    run(main)


def test_research_tools_take_the_report_type_and_domains_never_to_read(http_server: LiveServer) -> None:
    async def main() -> None:
        async with http_client(http_server) as client:
            asked = {"question": QUESTION, "max_rounds": 1}
            wrong = await client.call_tool("start_research", {**asked, "report_type": "poem"})
            assert wrong.is_error and "REPORT_TYPE" in text_of(wrong.content)
            options = {"report_type": "resources", "exclude_domains": "example.net"}
            started = await client.call_tool("start_research", {**asked, **options})
            assert not started.is_error, started.content
            await wait_completed(client, started.structured_content["job_id"])

    run(main)
