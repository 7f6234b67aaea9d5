"""Browser state: a small website (pages with text, links and forms) and the browsing session on it.

The session is the current page, the back stack, every page loaded in order (``visited``), the
values typed into the current page's forms but not yet sent (``drafts``), and every form submitted.
Form values are strings, as a browser sends them; a checkbox is ``"true"`` or ``"false"``.

Two additions for realistic sites (both optional, so older states load unchanged): a form with
``method: "get"`` (a search box) is not recorded as a submission: sending it navigates to its action
with the values as a query string (``/search?q=holiday``); and a page with ``search: true`` answers any
query string on its URL with the site's pages that contain every word of ``q``, ten a page
(``/search?q=holiday&page=2``). Such a URL is a page of the site for ``current_url``, ``back`` and
``visited``.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

from pydantic import ConfigDict, Field, field_validator, model_validator

from servers.kit import Model, ServerState

FieldType = Literal["text", "email", "number", "date", "textarea", "select", "checkbox", "password", "hidden"]
#: The longest URL a page, link or history entry may have.
MAX_URL_CHARS = 2000
Url = Annotated[str, Field(min_length=1, max_length=MAX_URL_CHARS)]
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")


def is_absolute_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def resolve(base: str | None, href: str) -> str:
    """``href`` resolved against the page at ``base`` (fragment dropped)."""
    return urldefrag(urljoin(base or "", href.strip())).url


class FormField(Model):
    """One input of a form. ``value`` is its initial value (a checkbox's is "true" or "false")."""

    name: Annotated[str, Field(min_length=1, max_length=100)]
    label: str
    type: FieldType = "text"
    options: list[str] = Field(default_factory=list, description="The choices of a select")
    required: bool = False
    value: str = ""

    @model_validator(mode="after")
    def _value_fits(self) -> FormField:
        if self.type == "select":
            if not self.options:
                raise ValueError(f"select {self.name!r} needs options")
            if self.value and self.value not in self.options:
                raise ValueError(f"select {self.name!r}: initial value {self.value!r} is not an option")
        elif self.options:
            raise ValueError(f"field {self.name!r}: only a select has options")
        if self.type == "checkbox" and self.value not in ("true", "false"):
            raise ValueError(f"checkbox {self.name!r}: value must be 'true' or 'false'")
        return self


class Form(Model):
    """A form: its id (unique across the site), its fields, its button and the page it leads to."""

    id: Annotated[str, Field(min_length=1, max_length=100)]
    title: str = ""
    fields: list[FormField] = Field(min_length=1)
    submit_label: str = "Submit"
    action: Url | None = Field(default=None, description="Page shown after submitting (absolute or relative URL)")
    method: Literal["post", "get"] = Field(
        default="post", description="'get': a search box, sent as a query string to its action and not recorded")

    @field_validator("id")
    @classmethod
    def _id_is_simple(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(f"form id {value!r}: use letters, digits and - _ . :")
        return value

    @model_validator(mode="after")
    def _unique_fields(self) -> Form:
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"form {self.id!r} has two fields with the same name")
        return self

    def field(self, name: str) -> FormField | None:
        return next((f for f in self.fields if f.name == name), None)


class Link(Model):
    # frozen: no tool changes a link, so a world's copy shares them (servers.kit.state)
    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1)
    href: Url


class Page(Model):
    """A page of the site, identified by its absolute URL."""

    url: Url
    title: str
    text: str = ""
    links: list[Link] = Field(default_factory=list)
    forms: list[Form] = Field(default_factory=list)
    search: bool = Field(default=False, description="A search page: its URL with ?q=... lists matching pages")

    @field_validator("url")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not is_absolute_url(value) or "#" in value:
            raise ValueError(f"page url {value!r} must be an absolute http(s) URL without a fragment")
        return value


class Submission(Model):
    """A form as it was sent: its id, the URL of the page it was on, and every field's value."""

    form: str
    page: Url
    fields: dict[str, str]


class BrowserState(ServerState):
    """``pages``: the website. ``current_url``: the page shown (None before the first navigation).
    ``back``: the back stack, oldest first. ``visited``: every page loaded, in order (navigations,
    link clicks, form results and going back). ``drafts``: form id -> field -> value typed on the
    current page and not yet submitted. ``submissions``: every form sent, in order."""

    pages: list[Page] = Field(default_factory=list)
    current_url: Url | None = None
    back: list[Url] = Field(default_factory=list)
    visited: list[Url] = Field(default_factory=list)
    drafts: dict[str, dict[str, str]] = Field(default_factory=dict)
    submissions: list[Submission] = Field(default_factory=list)

    world_generator: ClassVar[str] = "browser"

    @model_validator(mode="after")
    def _consistent(self) -> BrowserState:
        urls = [p.url for p in self.pages]
        if len(set(urls)) != len(urls):
            raise ValueError("two pages have the same url")
        form_ids = [f.id for p in self.pages for f in p.forms]
        if len(set(form_ids)) != len(form_ids):
            raise ValueError("two forms have the same id (form ids are unique across the site)")
        for page in self.pages:
            for form in page.forms:
                if form.action is not None and resolve(page.url, form.action) not in urls:
                    raise ValueError(f"form {form.id!r}: action {form.action!r} is not a page of the site")
        for url in [self.current_url, *self.back]:
            if url is not None and url not in urls and self.search_page(url) is None:
                raise ValueError(f"{url!r} is not a page of the site")
        if self.back and self.current_url is None:
            raise ValueError("a back stack needs a current page")
        current = self.page(self.current_url) if self.current_url else None
        for form_id, values in self.drafts.items():
            drafted = next((f for f in current.forms if f.id == form_id), None) if current else None
            if drafted is None:
                raise ValueError(f"drafts: form {form_id!r} is not on the current page")
            for name in values:
                if drafted.field(name) is None:
                    raise ValueError(f"drafts: form {form_id!r} has no field {name!r}")
        return self

    def page(self, url: str | None) -> Page | None:
        """The page at exactly ``url`` (a search page's URL with a query string is not one: see
        ``search_page``)."""
        return next((p for p in self.pages if p.url == url), None)

    def search_page(self, url: str) -> Page | None:
        """The search page ``url`` asks, when it is a search page's URL with a query string."""
        base, _, query = url.partition("?")
        page = self.page(base)
        return page if page is not None and page.search and query else None
