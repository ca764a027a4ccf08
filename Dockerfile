# deepresearch for a team: the API (`deepresearch serve`) and the workers (`deepresearch worker`) from
# one image. No embedded model: point LLM_BASE_URL at your model server (vLLM, llama.cpp, Ollama ...).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    DEEPRESEARCH_HOME=/data JOBS_BACKEND=celery
WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install '.[team,web]' && useradd --create-home --uid 10001 research \
    && mkdir -p /data && chown research /data
USER research
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')" || exit 1
CMD ["deepresearch", "serve", "--host", "0.0.0.0", "--port", "8000"]
