package web

import "fincom/store"

// Paging of the list routes fincom adds beside the spec's that grow with
// time (the audit log, statement lines, deliveries, the inbox, CRM,
// screenings, contracts): a page of page_size rows, 100 unless asked, at
// most MaxPageSize, answered with the total. The spec's own listings keep
// their shapes.
const (
	DefaultPageSize = 100
	MaxPageSize     = 500
)

// PageRequest is the paging part of such a route's body.
type PageRequest struct {
	Page     *int `json:"page" range:"1,1000000000" doc:"The page to read, from 1 (default 1); past the last page, data is empty."`
	PageSize *int `json:"page_size" range:"1,500" doc:"Rows a page, 1 to 500 (default 100)."`
}

// StorePage is the page the request asks for.
func (q PageRequest) StorePage() store.Page {
	pg := store.Page{Number: 1, Size: DefaultPageSize}
	if q.Page != nil {
		pg.Number = *q.Page
	}
	if q.PageSize != nil {
		pg.Size = *q.PageSize
	}
	return pg
}

// Paged is the success body of a paged route: {success: true, data,
// page, page_size, total}.
type Paged struct {
	Data  any
	Page  store.Page
	Total int
}

type pagedBody struct {
	Success  bool `json:"success"`
	Data     any  `json:"data"`
	Page     int  `json:"page"`
	PageSize int  `json:"page_size"`
	Total    int  `json:"total"`
}

// PageOf answers a page a store listing read, or its error.
func PageOf[T any](rows []T, total int, pg store.Page, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return Paged{Data: rows, Page: pg, Total: total}, nil
}
