"""CompiledStatement's result processors on PostgreSQL (asyncpg): numeric columns are read as
declared, as a session's result reads them (the driver's type is not known when compiling)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import Column, Float, Integer, MetaData, Numeric, Table, select
from sqlalchemy.dialects.postgresql import asyncpg

from sleuth_shell.db.compiled import CompiledStatement

_T = Table(
    "t",
    MetaData(),
    Column("id", Integer),
    Column("value", Float),
    Column("amount", Numeric(10, 2)),
    Column("exact", Float(asdecimal=True)),
)


def test_numeric_columns_compile_for_asyncpg() -> None:
    compiled = CompiledStatement(select(_T), asyncpg.dialect())
    # double precision and numeric come back from asyncpg as float and Decimal, unconverted;
    # a Float asked for as Decimal is converted.
    row = compiled.row([7, 1.5, Decimal("2.50"), 0.25])
    assert row == {"id": 7, "value": 1.5, "amount": Decimal("2.50"), "exact": Decimal("0.25")}
    assert type(row["value"]) is float and isinstance(row["exact"], Decimal)
