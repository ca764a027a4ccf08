"""Swagger UI's script and stylesheet served by the app itself, so ``/docs`` works offline.

The files come from the ``fastapi-offline`` package (Swagger UI 5, which reads OpenAPI 3.1); they
hold no data and are served without the token, like the web page.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TypedDict

from fastapi import APIRouter, Response

from deepresearch.errors import NotFoundError

ASSETS_PREFIX = "/docs/assets"
ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css", "favicon.png": "image/png"}


class SwaggerUrls(TypedDict):
    swagger_js_url: str
    swagger_css_url: str
    swagger_favicon_url: str


SWAGGER = SwaggerUrls(
    swagger_js_url=f"{ASSETS_PREFIX}/swagger-ui-bundle.js",
    swagger_css_url=f"{ASSETS_PREFIX}/swagger-ui.css",
    swagger_favicon_url=f"{ASSETS_PREFIX}/favicon.png",
)
"""Keyword arguments for FastAPI's ``get_swagger_ui_html`` pointing at the local copies."""


def docs_assets_router() -> APIRouter:
    router = APIRouter(prefix=ASSETS_PREFIX, include_in_schema=False)

    @router.get("/{name}")
    def asset(name: str) -> Response:
        if name not in ASSETS:
            raise NotFoundError(f"no documentation asset {name!r}")
        headers = {"Cache-Control": "public, max-age=86400"}
        return Response(_read(name), media_type=ASSETS[name], headers=headers)

    return router


@cache
def _read(name: str) -> bytes:
    import fastapi_offline

    return (Path(fastapi_offline.__file__).parent / "static" / name).read_bytes()
