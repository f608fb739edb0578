// A scripted model for the COIA landing edge function and its tests: it plays the part an
// LLM with structured output would, deterministically. It reads the company, the contact's
// name and email, the years in business and the specialties from what the visitor writes,
// and asks for what is still missing.
import type { BaseMessage } from "@langchain/core/messages";
import type { LandingModel, LandingProfile } from "../../supabase/functions/coia-landing/index.ts";

function learn(text: string): LandingProfile {
  const learned: LandingProfile = {};
  const company = /\b(?:[Ww]e are|[Ww]e're|[Cc]ompany is|I run)\s+([A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*)/.exec(text);
  if (company) learned.company_name = company[1];
  const name = /\bmy name is\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)/i.exec(text);
  if (name) learned.contact_name = name[1];
  const email = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(text);
  if (email) learned.contact_email = email[0];
  const years = /\b(\d{1,3})\s+years\b/i.exec(text);
  if (years) learned.years_in_business = Number(years[1]);
  const specialties = /\bwe do\s+([a-z ,]+?)(?:[.!]|$)/i.exec(text);
  if (specialties) learned.specialties = specialties[1].split(/\s*(?:,|\band\b)\s*/).filter(Boolean);
  return learned;
}

export const landingModel: LandingModel = (messages: BaseMessage[], known: LandingProfile) => {
  const learned = learn(String(messages.at(-1)?.content ?? ""));
  const profile = { ...known, ...learned };
  let reply;
  if (!profile.company_name) reply = "Welcome! What is your company called?";
  else if (!profile.contact_email) reply = `Nice to meet you, ${profile.company_name}. What email can we reach you at?`;
  else reply = `Thanks! Create an account to claim the ${profile.company_name} profile.`;
  return Promise.resolve({ reply, profile: learned });
};
