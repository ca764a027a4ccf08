"""Chat model seam and its implementations (embedded llama.cpp, any OpenAI-compatible server)."""

from deepresearch.llm.base import ChatModel, Completion, Message, Usage

__all__ = ["ChatModel", "Completion", "Message", "Usage"]
