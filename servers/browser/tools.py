"""Browser tools, named after Playwright's MCP server, over a simulated website.

``browser_snapshot`` renders the current page as an accessibility-style outline in which every
link, form field and button has a ref (``e1``, ``e2``, ... in page order); the other tools act on
an element by its ref. Refs are stable for a given page.

A search page (``Page.search``) loaded with a query string shows the site's pages containing every
word of ``q`` (title and text, case-insensitive; title matches first, then by URL), ``PAGE_SIZE`` a
page, with "Next page" and "Previous page" links carrying ``page=N``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Literal
from urllib.parse import parse_qs, urlencode

from pydantic import BaseModel, Field

from servers.browser.state import MAX_URL_CHARS, BrowserState, Form, FormField, Link, Page, Submission, resolve
from servers.kit import MAX_QUERY_CHARS, ToolError, Toolset, tool

Ref = Annotated[str, Field(min_length=1, description="Exact element reference from the page snapshot, e.g. 'e3'")]
Element = Annotated[str | None, Field(description="Human-readable element description (for the log)")]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ROLE = {"checkbox": "checkbox", "select": "combobox"}
#: Results per page of a search page.
PAGE_SIZE = 10


@dataclass(frozen=True)
class _LinkTarget:
    ref: str
    link: Link
    kind: Literal["link"] = "link"


@dataclass(frozen=True)
class _FieldTarget:
    ref: str
    form: Form
    field: FormField
    kind: Literal["field"] = "field"


@dataclass(frozen=True)
class _ButtonTarget:
    ref: str
    form: Form
    kind: Literal["button"] = "button"


#: What a ref points at on a page: a link, a form's field or a form's button.
_Target = _LinkTarget | _FieldTarget | _ButtonTarget


class FillField(BaseModel):
    name: str = Field(description="Human-readable field name")
    type: Literal["textbox", "checkbox", "radio", "combobox", "slider"] = Field(description="Type of the field")
    ref: Ref
    value: str = Field(description="Text for a textbox, 'true'/'false' for a checkbox, option text for a combobox")


def _quote(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _role(field: FormField) -> str:
    return _ROLE.get(field.type, "textbox")


class BrowserTools(Toolset[BrowserState]):
    state_model = BrowserState

    # -- page model --------------------------------------------------------------------------
    def _current(self) -> Page:
        if self.state.current_url is None:
            raise ToolError("no page is open; use browser_navigate first")
        return self._page_at(self.state.current_url)

    def _page_at(self, url: str) -> Page:
        page = self.state.page(url)
        if page is not None:
            return page
        search = self.state.search_page(url)
        if search is None:
            raise ToolError(f"page not found (404): {url}")
        return self._results(search, url)

    def _results(self, search: Page, url: str) -> Page:
        """The search page ``search`` answering the query string of ``url``."""
        query = parse_qs(url.partition("?")[2])
        q = " ".join(query.get("q", [])).strip()
        if len(q) > MAX_QUERY_CHARS:
            raise ToolError(f"the search query is {len(q)} characters long; this site searches at most {MAX_QUERY_CHARS}")
        number = query.get("page", ["1"])[-1]
        if not number.isdigit() or int(number) < 1:
            raise ToolError(f"page not found (404): {url} (page must be a positive number)")
        words = [w for w in re.split(r"\W+", q.lower()) if w]
        hits = []
        for page in self.state.pages:
            if page.search or not words:
                continue
            title, body = page.title.lower(), f"{page.title}\n{page.text}".lower()
            if all(w in body for w in words):
                hits.append((not all(w in title for w in words), page.url, page))
        hits.sort(key=lambda h: (h[0], h[1]))
        start = (int(number) - 1) * PAGE_SIZE
        shown = [h[2] for h in hits[start:start + PAGE_SIZE]]
        if not shown:
            text = f'No results for "{q}".' if start == 0 else f'No more results for "{q}".'
        else:
            text = f'Results {start + 1}-{start + len(shown)} of {len(hits)} for "{q}".'
            text += "".join(f"\n{page.title}: {(page.text.splitlines() or [''])[0][:120]}" for page in shown)
        links = [*search.links, *(Link(text=page.title, href=page.url) for page in shown)]
        base = search.url
        if start > 0:
            links.append(Link(text="Previous page", href=f"{base}?{urlencode({'q': q, 'page': int(number) - 1})}"))
        if start + PAGE_SIZE < len(hits):
            links.append(Link(text="Next page", href=f"{base}?{urlencode({'q': q, 'page': int(number) + 1})}"))
        return Page(url=url, title=f'Search: {q}' if q else search.title, text=text, links=links, forms=search.forms)

    @staticmethod
    def _targets(page: Page) -> list[_Target]:
        out: list[_Target] = []
        for link in page.links:
            out.append(_LinkTarget(f"e{len(out) + 1}", link))
        for form in page.forms:
            for field in form.fields:
                if field.type != "hidden":
                    out.append(_FieldTarget(f"e{len(out) + 1}", form, field))
            out.append(_ButtonTarget(f"e{len(out) + 1}", form))
        return out

    def _target(self, ref: str) -> _Target:
        page = self._current()
        for target in self._targets(page):
            if target.ref == ref:
                return target
        raise ToolError(f"no element with ref {ref!r} on {page.url}; take a browser_snapshot to see the refs")

    def _value(self, form: Form, field: FormField) -> str:
        return self.state.drafts.get(form.id, {}).get(field.name, field.value)

    def _render(self, page: Page) -> str:
        lines = [f"- Page URL: {page.url}", f"- Page Title: {page.title}", "- Page Snapshot:",
                 f'  - heading "{page.title}" [level=1]']
        lines += [f"  - text: {line}" for line in page.text.splitlines() if line.strip()]
        for target in self._targets(page):
            if target.kind == "link":
                lines.append(f'  - link "{target.link.text}" [ref={target.ref}] -> {resolve(page.url, target.link.href)}')
        for form in page.forms:
            lines.append(f'  - form "{form.title or form.id}" (id: {form.id}):')
            for target in self._targets(page):
                if target.kind == "link" or target.form is not form:
                    continue
                if target.kind == "button":
                    lines.append(f'    - button "{form.submit_label}" [ref={target.ref}]')
                    continue
                field = target.field
                flags = f"name: {field.name}, type: {field.type}" + (", required" if field.required else "")
                value = self._value(form, field)
                head = f'    - {_role(field)} "{field.label}" [ref={target.ref}] ({flags})'
                if field.type == "checkbox":
                    lines.append(f"{head} checked: {value}")
                elif field.type == "select":
                    lines.append(f"{head} options: {_quote(field.options)} selected: {_quote(value)}")
                elif field.type == "password":
                    lines.append(f"{head}: {_quote('•' * len(value))}")
                else:
                    lines.append(f"{head}: {_quote(value)}")
        return "\n".join(lines)

    # -- session changes ---------------------------------------------------------------------
    def _load(self, url: str, *, push: bool = True) -> str:
        if len(url) > MAX_URL_CHARS:
            raise ToolError(f"the URL is {len(url)} characters long; this browser opens URLs of at most {MAX_URL_CHARS}")
        page = self._page_at(url)
        back = list(self.state.back)
        if push and self.state.current_url is not None:
            back.append(self.state.current_url)
        self.state = self.state.model_copy(update={
            "current_url": page.url, "back": back, "visited": [*self.state.visited, page.url], "drafts": {},
        })
        return self._render(page)

    def _set(self, target: _Target, value: str) -> None:
        if target.kind != "field":
            raise ToolError(f"{target.ref} is a {target.kind}, not a form field")
        field, form = target.field, target.form
        if field.type == "checkbox":
            if value not in ("true", "false"):
                raise ToolError(f"checkbox {field.name!r} takes 'true' or 'false', not {value!r}")
        elif field.type == "select":
            if value not in field.options:
                raise ToolError(f"{value!r} is not an option of {field.name!r}; options: {', '.join(field.options)}")
        elif field.type == "number" and value != "":
            try:
                float(value)
            except ValueError:
                raise ToolError(f"field {field.name!r} takes a number, not {value!r}") from None
        elif field.type == "date" and value != "" and not _DATE.match(value):
            raise ToolError(f"field {field.name!r} takes a date as YYYY-MM-DD, not {value!r}")
        drafts = {k: dict(v) for k, v in self.state.drafts.items()}
        drafts.setdefault(form.id, {})[field.name] = value
        self.state = self.state.model_copy(update={"drafts": drafts})

    def _submit(self, form: Form) -> str:
        page = self._current()
        values = {f.name: self._value(form, f) for f in form.fields}
        for field in form.fields:
            unset = values[field.name] == "" or (field.type == "checkbox" and values[field.name] == "false")
            if field.required and unset:
                raise ToolError(f"form {form.id!r} was not submitted: required field {field.name!r} ({field.label}) is empty")
            if field.type == "email" and values[field.name] and not re.match(r"^[^@\s]+@[^@\s]+$", values[field.name]):
                raise ToolError(f"form {form.id!r} was not submitted: {values[field.name]!r} in {field.name!r} is not an email address")
        if form.method == "get":
            target = resolve(page.url, form.action or page.url.partition("?")[0])
            sent = {name: value for name, value in values.items() if value != ""}
            return self._load(f"{target}?{urlencode(sent)}" if sent else target)
        drafts = {k: v for k, v in self.state.drafts.items() if k != form.id}
        self.state = self.state.model_copy(update={
            "submissions": [*self.state.submissions, Submission(form=form.id, page=page.url, fields=values)],
            "drafts": drafts,
        })
        if form.action is None:
            return f"Submitted form {form.id!r}.\n" + self._render(page)
        return f"Submitted form {form.id!r}.\n" + self._load(resolve(page.url, form.action))

    # -- tools -------------------------------------------------------------------------------
    @tool()
    def browser_navigate(self, url: Annotated[str, Field(min_length=1, description="The URL to navigate to")]) -> str:
        """Navigate to a URL (absolute, or relative to the current page) and return the page snapshot."""
        target = resolve(self.state.current_url, url)
        if not target.startswith(("http://", "https://")):
            raise ToolError(f"cannot navigate to {url!r}: give an absolute http(s) URL")
        return self._load(target)

    @tool()
    def browser_navigate_back(self) -> str:
        """Go back to the previous page in the history and return its snapshot."""
        if not self.state.back:
            raise ToolError("there is no previous page in the history")
        url = self.state.back[-1]
        self.state = self.state.model_copy(update={"back": self.state.back[:-1]})
        return self._load(url, push=False)

    @tool(read_only=True)
    def browser_snapshot(self) -> str:
        """Capture the current page: URL, title, text, links, and forms with their fields, current
        values and buttons. Every interactive element has a ref to use with the other tools."""
        return self._render(self._current())

    @tool(destructive=True)
    def browser_click(self, ref: Ref, element: Element = None) -> str:
        """Click an element: a link navigates to its target, a checkbox toggles, a form's button
        submits the form (the submission cannot be undone)."""
        target = self._target(ref)
        if target.kind == "link":
            return self._load(resolve(self.state.current_url, target.link.href))
        if target.kind == "button":
            return self._submit(target.form)
        if target.field.type == "checkbox":
            self._set(target, "false" if self._value(target.form, target.field) == "true" else "true")
            return f"Toggled {target.field.name!r}: checked is now {self._value(target.form, target.field)}"
        raise ToolError(f"{ref} is a {_role(target.field)}; use browser_type, browser_fill_form or browser_select_option")

    @tool(destructive=True)
    def browser_type(
        self,
        ref: Ref,
        text: Annotated[str, Field(description="Text to type into the field (replaces its value)")],
        element: Element = None,
        submit: Annotated[bool, Field(description="Press Enter afterwards, submitting the form")] = False,
    ) -> str:
        """Type text into an editable field, replacing its value; with submit, press Enter to send the form."""
        target = self._target(ref)
        if target.kind != "field" or target.field.type in ("checkbox", "select"):
            raise ToolError(f"{ref} is not a text field; use browser_click for checkboxes and browser_select_option for selects")
        self._set(target, text)
        if submit:
            return self._submit(target.form)
        return f"Typed into {target.field.name!r}"

    @tool()
    def browser_select_option(
        self, ref: Ref, values: Annotated[list[str], Field(min_length=1, description="Option text to select")],
        element: Element = None,
    ) -> str:
        """Select an option in a dropdown (combobox)."""
        target = self._target(ref)
        if target.kind != "field" or target.field.type != "select":
            raise ToolError(f"{ref} is not a dropdown")
        if len(values) != 1:
            raise ToolError(f"{target.field.name!r} takes exactly one option")
        self._set(target, values[0])
        return f"Selected {values[0]!r} in {target.field.name!r}"

    @tool()
    def browser_fill_form(self, fields: Annotated[list[FillField], Field(min_length=1, description="Fields to fill in")]) -> str:
        """Fill several form fields at once: textboxes get text, checkboxes 'true'/'false', comboboxes an option.
        Nothing is changed if any field is refused. Does not submit."""
        before = self.state
        try:
            for item in fields:
                target = self._target(item.ref)
                if target.kind != "field":
                    raise ToolError(f"{item.ref} is a {target.kind}, not a form field")
                role = _role(target.field)
                if item.type != role:
                    raise ToolError(f"{item.ref} ({target.field.name!r}) is a {role}, not a {item.type}")
                self._set(target, item.value)
        except ToolError:
            self.state = before
            raise
        return f"Filled {len(fields)} field(s)"
