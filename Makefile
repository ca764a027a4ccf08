.PHONY: install demo test lint bench

install:
	scripts/install.sh

demo:
	scripts/demo

test:
	EXTRAS=dev scripts/install.sh
	.venv/bin/coverage erase
	DEEPRESEARCH_REQUIRE_EMBEDDED=1 .venv/bin/coverage run -m pytest
	.venv/bin/coverage combine -q
	.venv/bin/coverage report

lint:
	.venv/bin/ruff check src tests
	.venv/bin/ruff format --check src tests
	.venv/bin/mypy
	.venv/bin/lint-imports
	.venv/bin/python evals/leaks.py --if-present

bench:
	.venv/bin/python bench/index_bench.py
