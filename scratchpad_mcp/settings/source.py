"""Reading variables with pydantic-settings, and turning its refusals into SettingsError texts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import Field, ValidationError
from pydantic.config import JsonDict
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

from .values import integer_range

V = TypeVar("V", bound="Variables")


class SettingsError(ValueError):
    """A setting has a value the server cannot use; the message names the variable."""


def variable(
    name: str,
    meaning: str,
    default: object = "",
    *,
    ge: float | None = None,
    le: float | None = None,
    shown: str | None = None,
    out_of_range: str | None = None,
    validate_default: bool = False,
) -> Any:
    """A field read from the variable `name`; `shown` is its default as the docs' settings table says it."""
    extra: JsonDict = {} if shown is None else {"shown": shown}
    if ge is not None:
        extra["out_of_range"] = out_of_range or integer_range(int(ge), None if le is None else int(le))
    described: dict[str, Any] = {"validation_alias": name, "description": meaning, "json_schema_extra": extra or None}
    if validate_default:  # a default that depends on other settings: the validator works it out
        return Field(default, validate_default=True, ge=ge, le=le, **described)
    return Field(default, ge=ge, le=le, **described)


def variable_name(field: FieldInfo) -> str:
    """The variable a field is read from; "" for a field that no variable sets."""
    return field.validation_alias if isinstance(field.validation_alias, str) else ""


def field_extra(field: FieldInfo, key: str) -> str | None:
    extra = field.json_schema_extra
    found = extra.get(key) if isinstance(extra, dict) else None
    return found if isinstance(found, str) else None


class Variables(BaseSettings):
    """Settings read from environment variables named exactly (case matters); an empty one counts as unset."""

    model_config = SettingsConfigDict(frozen=True, case_sensitive=True, env_ignore_empty=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)  # the environment is read by read(): Settings.from_env, never behind its back


class EnvironSource(EnvSettingsSource):
    """The variables of a given mapping (os.environ or a test's dict); a field without a variable name is not read."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self._environ, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        if not variable_name(field):
            return None, field_name, False
        return super().get_field_value(field, field_name)


def read(model: type[V], environ: Mapping[str, str], **given: object) -> V:
    """The model's variables in `environ`, and `given` fields; the first refusal as a SettingsError."""
    found = {**EnvironSource(model, environ)(), **given}
    try:
        return model.model_validate(found)
    except ValidationError as error:
        first = error.errors()[0]
        name = str(first["loc"][0])
        shown = (first.get("ctx") or {}).get("shown", found.get(name))
        tail = first["msg"]
        if first["type"] in ("greater_than_equal", "less_than_equal"):
            fields = {variable_name(field) or key: field for key, field in model.model_fields.items()}
            tail = f"is out of range: {field_extra(fields[name], 'out_of_range')}."
        raise SettingsError(f"{name}={shown!r} {tail}") from None
