"""FastAPI's hello-world, the second reference of the HTTP benchmark."""

from fastapi import FastAPI

app = FastAPI()


@app.get("/")
async def hello() -> dict[str, str]:
    return {"hello": "world"}
